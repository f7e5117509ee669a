"""Language-model policies: a tokenizer, sampling, multi-turn rollouts against an environment, prompt data."""

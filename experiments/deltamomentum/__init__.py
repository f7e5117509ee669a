"""DeltaMomentum (DeltaSGD / DeltaAdamW): the Llama LM, its data, task and claim checks; optimizers in reprolab.optim.delta."""

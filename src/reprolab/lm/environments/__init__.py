"""Environments a language-model policy acts in: each answers an action with an observation, a reward, done."""

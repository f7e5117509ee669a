"""Building and running one job: device, trainer, loggers, the run folder, checkpoints loaded safely."""

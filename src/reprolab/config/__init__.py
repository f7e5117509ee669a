"""The config tree: where it lives, composing it, its resolvers, paths, value checks and printing."""

"""`make plan`: each reproduce target's compute, measured from its composed config."""

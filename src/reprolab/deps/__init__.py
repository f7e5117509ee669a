"""What the project needs of its dependencies beyond their public APIs: `compat` names each such reach."""

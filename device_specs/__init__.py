"""Built-in device spec YAML files (one per GPU model); read with importlib.resources, see README.md here."""

"""The package list, found rather than listed: every package under roofline/, and the spec folder.

Everything else about the build is in pyproject.toml. The spec folder lives at the top of the repository, where
users read it, and ships as ``roofline.device_specs`` (pyproject.toml maps the folder and names its YAML files as
package data); pyproject.toml's own package discovery cannot add a package that lives outside roofline/.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["roofline", "roofline.*"]), "roofline.device_specs"])

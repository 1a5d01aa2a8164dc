"""``python -m roofline`` runs the CLI."""

from roofline.cli import main

main()

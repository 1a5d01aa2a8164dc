"""``python -m roofline`` runs the CLI."""

from roofline.cli.app import main

main()

"""One module per `tablectl` sub-command; each exposes `register(subparsers)`."""

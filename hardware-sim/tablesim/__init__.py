"""A faithful simulator of the automatic table: the table's side of the wire protocol and its physics."""

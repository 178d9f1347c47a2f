"""The link to the table's controller board: wire protocol, transports and the asyncio table API."""

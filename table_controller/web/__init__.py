"""The referee display: a FastAPI app factory, its REST + WebSocket API and the pages it serves."""

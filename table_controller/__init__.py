"""The brain of the automatic mahjong table: rules engine, match record and referee display."""

__version__ = "0.1.0"

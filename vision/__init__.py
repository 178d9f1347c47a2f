"""The camera tile reader: calibration, detection and classification of face-up tiles."""

"""Playback: ``zoo enjoy`` plays a trained agent's episodes and films them (the ``video`` extra)."""

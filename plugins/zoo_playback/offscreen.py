"""Drawing without a screen or sound card: what filming an env needs, without the libraries' noise.

gymnasium's classic control envs draw with pygame, whose ``pygame.init()`` opens SDL's video and audio
drivers. On a machine without a display or sound server those print lines such as
``error: XDG_RUNTIME_DIR is invalid or not set in the environment.`` and ``ALSA lib ... Unknown PCM``
to stderr, which read as the zoo's own errors during a run that succeeds. Pictures drawn to arrays
need neither driver, so SDL's dummy ones are chosen, unless the user chose others.
"""

from __future__ import annotations

import os

SDL_DRIVERS = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def draw_offscreen() -> None:
    """Use SDL's dummy video and audio drivers in this process (before pygame starts; a user's own choice stays)."""
    for name, value in SDL_DRIVERS.items():
        os.environ.setdefault(name, value)

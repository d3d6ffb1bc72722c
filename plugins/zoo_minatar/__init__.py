"""MinAtar (Young & Tian, 2019) games as zoo environments: 10x10 miniatures of five Atari games."""

"""A third-party training script that knows GOHR only by its gymnasium id (CleanRL/SB3 style).

    python third_party_ppo.py zoo_gohr:GOHR/Clockwise-v0 256
"""

import sys

import gymnasium
from stable_baselines3 import PPO

env_id, steps = sys.argv[1], int(sys.argv[2])
env = gymnasium.make(env_id)
model = PPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
model.learn(total_timesteps=steps)
returns = [episode["r"] for episode in model.ep_info_buffer]
print(f"{env.spec.id} {model.num_timesteps} steps, {len(returns)} episodes")

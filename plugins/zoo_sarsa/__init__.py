"""SARSA(lambda) with replacing traces and linear function approximation, and the ALE paper's features.

The agent (``sarsa``) learns over any registered feature map (the ``zoo.features.FeatureMap``
contract); this plugin registers the ALE paper's Basic, BASS, DISCO, LSH and RAM maps.
"""

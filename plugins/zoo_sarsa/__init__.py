"""SARSA(lambda) with replacing traces and linear function approximation, and the ALE paper's features.

The agent (``sarsa``) learns over any registered feature map: the plugin declares the kind ``feature``, its
``register_features`` hook and the ``FeatureMap`` contract (:mod:`zoo_sarsa.feature_maps`), and registers the
ALE paper's Basic, BASS, DISCO, LSH and RAM maps.
"""

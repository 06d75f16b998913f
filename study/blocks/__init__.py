"""This study's blocks: the deck figures, the chain diagram, the explorer."""

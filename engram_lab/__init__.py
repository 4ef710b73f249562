"""engram-lab: a Jupyter-native, document-grounded ontology memory over a Markdown vault."""

__version__ = "0.1.0"

__all__ = ["__version__"]

"""Entity resolution as a reversible overlay, and supersession of dated decisions.

Nothing here rewrites an assertion graph. Judgments live in the decision ledger
(the authority) and are projected into one overlay graph; supersession candidates
live in the later document's ``#analysis`` graph.
"""

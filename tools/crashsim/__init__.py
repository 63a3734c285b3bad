"""Power-loss crash states of the reference's durable steps (issue 28): the persistence models, the
capture of a workload, the states as real folders, the invariants checked on each."""

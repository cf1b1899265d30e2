"""The one error type for bad input, so a batch can catch it, record it and go on."""


class InputError(Exception):
    """A structure, spec or preset file that cannot be used.

    The message always names the file and the problem, e.g.
    ``InputError("x/1abc.pdb", "no drug-like ligand (HETATM groups: HOH, SO4)")``.
    """

    def __init__(self, path, problem):
        self.path = str(path)
        self.problem = str(problem)
        super().__init__(f"{self.path}: {self.problem}")

"""CAD files read through OpenCascade (the optional extra ``cad``: the ``cadquery-ocp``
wheels, imported lazily): :mod:`rigidparts.cad.step` reads STEP solids and assemblies and
gives their exact B-rep mass properties, each certified against a fine tessellation."""

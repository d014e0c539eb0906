import numpy as np

def kernel(x):
    return x

alpha = 1
beta = 2
gamma = 3

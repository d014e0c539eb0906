#include "clilogging.h"

Q_LOGGING_CATEGORY(lcCli, "accelopt.cli")

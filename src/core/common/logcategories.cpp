#include "common/logcategories.h"

Q_LOGGING_CATEGORY(lcCore, "accelopt.core")
Q_LOGGING_CATEGORY(lcModel, "accelopt.model")
Q_LOGGING_CATEGORY(lcLlm, "accelopt.llm")
Q_LOGGING_CATEGORY(lcAgents, "accelopt.agents")
Q_LOGGING_CATEGORY(lcSearch, "accelopt.search")
Q_LOGGING_CATEGORY(lcMemory, "accelopt.memory")
Q_LOGGING_CATEGORY(lcHosts, "accelopt.hosts")
Q_LOGGING_CATEGORY(lcStore, "accelopt.store")
Q_LOGGING_CATEGORY(lcExport, "accelopt.export")

#pragma once

#include <QLoggingCategory>

// One category per core module (the rooms of docs/architecture.md), so the Log dock and QT_LOGGING_RULES can
// filter by module.
Q_DECLARE_LOGGING_CATEGORY(lcCore)
Q_DECLARE_LOGGING_CATEGORY(lcModel)
Q_DECLARE_LOGGING_CATEGORY(lcLlm)
Q_DECLARE_LOGGING_CATEGORY(lcAgents)
Q_DECLARE_LOGGING_CATEGORY(lcSearch)
Q_DECLARE_LOGGING_CATEGORY(lcMemory)
Q_DECLARE_LOGGING_CATEGORY(lcHosts)
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcExport)

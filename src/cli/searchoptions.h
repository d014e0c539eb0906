#pragma once

#include "search/searchconfig.h"

class QCommandLineParser;

// The search settings on the command line: --preset, -B -N -K -T -F, --topk, --expn, --patience, the budgets
// and --target-percent. Only the options given change a config, so `accelopt resume` can raise one setting
// of a session and keep the rest.
class SearchOptions
{
public:
    static void add(QCommandLineParser &parser);
    // Applies the given options over `config`; `changed` says whether any was given. False with `error` on a
    // bad value or a resulting config that fails SearchConfig::problems().
    static bool apply(const QCommandLineParser &parser, SearchConfig &config, bool &changed, QString &error);
};

#pragma once

#include "search/optimizationrun.h"

#include <memory>
#include <optional>

class QCommandLineParser;

// `accelopt optimize` and `accelopt resume` in a terminal: the options both take, an OptimizationRun driven
// to its end with a progress line per iteration (or every SearchEvent as a JSON line), and Ctrl+C as a clean
// stop that leaves the session resumable. Everything else is the core's.
class SearchConsole
{
public:
    struct Options
    {
        OptimizationRun::Options run;
        bool json = false;
    };

    // The options both commands take: --host, --jobs, --json, --no-memory, --llm-config.
    static void addOptions(QCommandLineParser &parser);
    static bool readOptions(const QCommandLineParser &parser, Options &options, QString &error);

    explicit SearchConsole(const Options &options);
    ~SearchConsole();

    // Both return the process exit status: 0 the search ended by its rules, 1 it failed or could not start,
    // 130 stopped by Ctrl+C (resumable).
    int start(const SearchTask &task, const SearchConfig &config);
    int resume(const QString &sessionPrefix, const std::optional<SearchConfig> &config);

private:
    int drive(const QString &command, OptimizationRun::Begin begin);
    void print(const SearchEvent &event);

    Options m_options;
    std::unique_ptr<OptimizationRun> m_run;
};

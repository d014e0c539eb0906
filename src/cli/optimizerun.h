#pragma once

#include "search/searchconfig.h"
#include "search/searchtask.h"
#include "search/stoprules.h"

#include <QString>

#include <memory>
#include <optional>

class QCommandLineParser;
class QTextStream;

// What `accelopt optimize` and `accelopt resume` share: the workspace and memory databases, the models from
// the LLM settings, the host, a BeamSearch run to its end with a progress line per iteration (or JSON lines),
// Ctrl+C as a clean stop that leaves the session resumable, and a lock so two processes never drive one
// session.
class OptimizeRun
{
public:
    struct Options
    {
        QString host; // empty: 'local' for a new session, the session's own host for a resume
        int jobs = 2; // slots on a local host
        bool json = false;
        bool useMemory = true;
        QString llmConfig; // empty: LlmConfig::defaultPath()
    };

    // The options both commands take: --host, --jobs, --json, --no-memory, --llm-config.
    static void addOptions(QCommandLineParser &parser);
    static bool readOptions(const QCommandLineParser &parser, Options &options, QString &error);

    explicit OptimizeRun(const Options &options);
    ~OptimizeRun();

    // Both return the process exit status: 0 the search ended by its rules, 1 it failed or could not start,
    // 130 stopped by Ctrl+C (resumable).
    int start(const SearchTask &task, const SearchConfig &config);
    int resume(const QString &sessionPrefix, const std::optional<SearchConfig> &config);

private:
    class Private;
    std::unique_ptr<Private> d;
};

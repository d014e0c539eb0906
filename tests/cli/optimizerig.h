#pragma once

#include "llm/retrypolicy.h"
#include "scriptedagents.h"
#include "scriptedllmserver.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <csignal>
#include <functional>
#include <optional>

// `accelopt optimize` and `resume` end to end, for the suites that drive whole sessions: the real CLI binary,
// the local host (or one the test names) with the real runner and nkisim, real SQLite files, and
// ScriptedLlmServer (a stand-in for a model server on loopback) playing the four agents from
// tests/fixtures/optimize with real faster, slower and broken variants of the swiglu and adamw baselines
// (ScriptedAgents).
class OptimizeRig
{
public:
    struct Workspace
    {
        QTemporaryDir dir;
        QString db() const { return dir.filePath(QStringLiteral("workspace.sqlite")); }
        QString memory() const { return dir.filePath(QStringLiteral("memory.sqlite")); }
        QString llm() const { return dir.filePath(QStringLiteral("llm.json")); }
        QString hosts() const { return dir.filePath(QStringLiteral("hosts.json")); }
    };
    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
        QList<QJsonObject> events;
        bool killed = false;
        QJsonObject event(const QString &name) const;
        QList<QJsonObject> all(const QString &name) const;
    };
    // Kill the CLI when the server gets the n-th request of `role`, counted over all processes, or the first
    // one after it (calls run concurrently, so a process killed at one point may already have sent the
    // request another point names); or, with `event` set, when the CLI has printed its n-th --json line of
    // that event.
    struct KillPoint
    {
        QString role;
        int occurrence = 0;
        int signal = SIGKILL; // SIGINT: what Ctrl+C sends
    };

    static constexpr double inputPrice = 3.0; // USD per million tokens of the stand-in model
    static constexpr double outputPrice = 15.0;
    static double callCost();

    // Starts the server and loads both fixtures; false with `error`.
    bool start(QString &error);
    void useAgents(const ScriptedAgents &agents);
    // llm.json for the stand-in: one endpoint for every role. No retries unless `retry` says otherwise.
    void writeLlmConfig(const Workspace &w, bool priced = true,
                        std::optional<RetryPolicy> retry = std::nullopt, int timeoutMs = 60000) const;
    QProcessEnvironment environment(const Workspace &w) const;
    // A "neuron" host named `name` in the workspace's hosts.json: this machine, with an interpreter that sees
    // the Trainium STAND-IN (tests/fixtures/runner/fake_nki_current), as a Trainium host would its SDK.
    static void addNeuronStandIn(const Workspace &w, const QString &name);
    // Runs the CLI while this thread's event loop keeps serving the stand-in model.
    Run cli(const Workspace &w, const QStringList &args, int timeoutMs = 240000);
    int requests() const; // answered or not, every role, since useAgents
    // Sends `signal` to the running CLI at its next poll (from whileRunning, once what the test waits for is
    // seen): SIGINT as Ctrl+C would, SIGKILL to the CLI and its runners.
    void signalNow(int signal)
    {
        m_killSignal = signal;
        m_killNow = true;
    }

    static QStringList optimizeArgs(const QString &task, int seed);
    // Everything a session produced, named by content instead of by ids (which differ per session), in a
    // stable order: two runs of the same script must give equal lists.
    static QStringList snapshot(const Workspace &w, const QString &sessionId);

    ScriptedLlmServer server;
    ScriptedAgents swiglu;
    ScriptedAgents adamw;
    QMap<QString, int> seen; // requests per role
    std::optional<KillPoint> killAt;
    bool refuseAll = false; // every call answered 401, as with a wrong API key
    // Consulted before the agents answer: a fault to send instead (an error status, garbage, a hang), or
    // nullopt.
    std::function<std::optional<ScriptedLlmServer::Response>(const ScriptedLlmServer::Request &)> fault;
    // Called about every 20 ms while the CLI runs, with its stdout so far: where a test injects its own
    // faults.
    std::function<void(const QString &out)> whileRunning;

private:
    void killTree(qint64 pid, Run &run);
    const ScriptedAgents *m_agents = nullptr;
    bool m_killNow = false;
    int m_killSignal = SIGKILL;
};

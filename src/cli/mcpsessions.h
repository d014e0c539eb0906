#pragma once

#include "mcptool.h"

#include <QList>
#include <QObject>
#include <QPointer>

#include <map>
#include <memory>

class McpCall;
class OptimizationRun;
class SearchState;
struct SearchEvent;

// The optimize sessions `accelopt mcp` runs in its own process, and the three tools over them:
// optimize_start (the session id at once, the search goes on), optimize_follow (live figures, now or at the next
// iteration or the end) and optimize_stop (a clean, resumable stop, as Ctrl+C in `accelopt optimize`). Each
// run is the same OptimizationRun `accelopt optimize` drives, with the LLM settings of the user's llm.json; its
// events feed a SearchState, whose summary gives the figures.
class McpSessions : public QObject
{
    Q_OBJECT
public:
    explicit McpSessions(QObject *parent = nullptr);
    ~McpSessions() override;

    QList<McpTool> tools();
    // Stops every running session cleanly; idle() follows once none runs (at once when none did).
    void stopAll();
    bool anyRunning() const;

Q_SIGNALS:
    void idle();

private:
    struct Session;
    void start(McpCall *call);
    void follow(McpCall *call);
    void stop(McpCall *call);
    void onEvent(Session *session, const SearchEvent &event);
    void onEnded(Session *session);
    void halt(Session *session); // a clean stop
    Session *find(McpCall *call, const QString &prefix);
    QJsonObject figures(const Session &session) const;

    std::map<int, std::unique_ptr<Session>> m_sessions; // by start order
    int m_next = 0;
};

#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QObject>

#include <optional>

// One `tools/call` while it runs. The tool does its work with objects parented to the call (they go with
// it), tells progress, and ends it with succeed() or fail() once; the server sends the result. A call the
// client cancels emits cancelled() and sends nothing more; the tool only has to stop its work.
class McpCall : public QObject
{
    Q_OBJECT
public:
    McpCall(const QJsonValue &id, const QString &tool, const QJsonObject &arguments,
            const QJsonValue &progressToken, QObject *parent = nullptr);

    QJsonValue id() const { return m_id; }
    QString tool() const { return m_tool; }
    const QJsonObject &arguments() const { return m_arguments; }
    bool isDone() const { return m_done; }

    // A notifications/progress with the next number, when the client asked for progress.
    void progress(const QString &message);
    // The result: `structured` as structuredContent (it must match the tool's output schema), and as text
    // for older clients, after `text` when one is given.
    void succeed(const QJsonObject &structured, const QString &text = {});
    // The tool could not do its job: isError with `text`; `structured` is still sent when not empty, and
    // then matches the output schema too (a kernel that failed has its evaluation).
    void fail(const QString &text, const QJsonObject &structured = {});
    void cancel(); // the server's, on notifications/cancelled or shutdown

Q_SIGNALS:
    void cancelled();
    void progressed(const QJsonObject &params); // of a notifications/progress
    void completed(const QJsonObject &result);  // of the response

private:
    QJsonValue m_id;
    QString m_tool;
    QJsonObject m_arguments;
    QJsonValue m_progressToken;
    int m_progress = 0;
    bool m_done = false;
};

#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QString>

struct LogRecord
{
    QDateTime time;
    QtMsgType type = QtDebugMsg;
    QString category;
    QString message;
    quint64 sequence = 0; // increasing; lets a late listener skip records it already took from records()
};
Q_DECLARE_METATYPE(LogRecord)

// Collects the process's own log messages (every category, every thread) so the Log dock can show them.
// It chains to the previous message handler, so stderr output is unchanged. Records arrive on the hub's
// thread through a queued signal: the handler itself may run on any thread and must never touch widgets.
class LogHub : public QObject
{
    Q_OBJECT
public:
    static LogHub *instance();
    // Installs the message handler once; later calls are no-ops.
    static void install();

    // The most recent records, oldest first (bounded so a chatty run cannot eat memory).
    QList<LogRecord> records() const;
    static constexpr int capacity = 5000;
    static QString levelName(QtMsgType type);

Q_SIGNALS:
    void recordAdded(const LogRecord &record);

private:
    explicit LogHub(QObject *parent = nullptr);
    void append(LogRecord record);
    static void handler(QtMsgType type, const QMessageLogContext &context, const QString &message);

    mutable QMutex m_mutex;
    QList<LogRecord> m_records;
    int m_head = 0; // next slot to overwrite once the ring is full
    quint64 m_nextSequence = 1;
};

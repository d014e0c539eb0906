#include "common/loghub.h"

#include <QCoreApplication>

namespace {
QtMessageHandler g_previous = nullptr;
bool g_installed = false;
thread_local bool t_inHandler = false; // a handler that logs would recurse forever
} // namespace

LogHub::LogHub(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<LogRecord>();
}

LogHub *LogHub::instance()
{
    static LogHub *hub = new LogHub(); // lives for the whole process; the handler may fire during teardown
    return hub;
}

void LogHub::install()
{
    if (g_installed)
        return;
    g_installed = true;
    instance();
    g_previous = qInstallMessageHandler(&LogHub::handler);
}

QList<LogRecord> LogHub::records() const
{
    QMutexLocker lock(&m_mutex);
    if (m_records.size() < capacity)
        return m_records;
    QList<LogRecord> ordered = m_records.mid(m_head);
    ordered += m_records.mid(0, m_head);
    return ordered;
}

QString LogHub::levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return QStringLiteral("debug");
    case QtInfoMsg:
        return QStringLiteral("info");
    case QtWarningMsg:
        return QStringLiteral("warning");
    case QtCriticalMsg:
        return QStringLiteral("critical");
    case QtFatalMsg:
        return QStringLiteral("fatal");
    }
    return QStringLiteral("unknown");
}

void LogHub::append(LogRecord record)
{
    {
        QMutexLocker lock(&m_mutex);
        record.sequence = m_nextSequence++;
        if (m_records.size() < capacity) {
            m_records.append(record);
        } else {
            m_records[m_head] = record;
            m_head = (m_head + 1) % capacity;
        }
    }
    QMetaObject::invokeMethod(
        this, [this, record] { Q_EMIT recordAdded(record); }, Qt::QueuedConnection);
}

void LogHub::handler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (!t_inHandler) {
        t_inHandler = true;
        LogRecord record;
        record.time = QDateTime::currentDateTime();
        record.type = type;
        record.category = QString::fromLatin1(context.category ? context.category : "default");
        record.message = message;
        instance()->append(record);
        t_inHandler = false;
    }
    if (g_previous)
        g_previous(type, context, message);
}

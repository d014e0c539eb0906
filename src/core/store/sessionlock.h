#pragma once

#include <QString>

#include <memory>

class QLockFile;

// Keeps two processes (two `accelopt resume`, or the CLI and the workbench) from driving one session at the
// same time: a lock file next to the workspace database, `<db>-locks/<session id>.lock`. A killed process
// leaves a stale lock that is recognised by its dead pid and taken over; age never makes a lock stale.
class SessionLock
{
public:
    SessionLock(const QString &databasePath, const QString &sessionId);
    ~SessionLock();
    SessionLock(const SessionLock &) = delete;
    SessionLock &operator=(const SessionLock &) = delete;

    // False with the holder named in `error`.
    bool tryLock(QString &error);
    void unlock();
    bool isLocked() const;

    // Whether a live process (this one included) holds the session: a "running" session nobody holds was
    // interrupted (killed, or its machine went down) and can be resumed.
    static bool isHeld(const QString &databasePath, const QString &sessionId);
    static QString path(const QString &databasePath, const QString &sessionId);

private:
    QString m_sessionId;
    std::unique_ptr<QLockFile> m_file;
};

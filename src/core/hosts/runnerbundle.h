#pragma once

#include <QList>
#include <QString>

// The files a host needs to run the runner (nkibench/: runner, nkisim, tasks), and their content hash. The
// hash names the remote folder, so an unchanged runner is never uploaded twice and two versions never mix.
class RunnerBundle
{
public:
    struct File
    {
        QString relativePath;
        QString absolutePath;
        qint64 size = 0;
    };

    explicit RunnerBundle(const QString &nkibenchDir);

    bool scan(QString &error);
    QList<File> files() const { return m_files; }
    QString hash() const { return m_hash; } // 16 hex digits of SHA-256 over paths and contents
    qint64 totalBytes() const;

private:
    QString m_root;
    QList<File> m_files;
    QString m_hash;
};

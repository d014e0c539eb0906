#include "hosts/runnerbundle.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>

RunnerBundle::RunnerBundle(const QString &nkibenchDir) : m_root(QDir(nkibenchDir).absolutePath()) {}

bool RunnerBundle::scan(QString &error)
{
    m_files.clear();
    const QDir root(m_root);
    if (!QFileInfo(root.filePath(QStringLiteral("runner/accelopt_runner"))).isDir()) {
        error = QStringLiteral("%1 holds no runner (runner/accelopt_runner is missing)").arg(m_root);
        return false;
    }
    QDirIterator it(m_root, QDir::Files | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = root.relativeFilePath(path);
        // Caches and compiled bytecode differ between machines and must not change the hash.
        if (relative.contains(QStringLiteral("__pycache__")) || relative.endsWith(QStringLiteral(".pyc")) ||
            relative.startsWith(u'.') || relative.contains(QStringLiteral("/.")))
            continue;
        m_files.append({relative, path, it.fileInfo().size()});
    }
    std::sort(m_files.begin(), m_files.end(),
              [](const File &a, const File &b) { return a.relativePath < b.relativePath; });
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const File &file : std::as_const(m_files)) {
        QFile f(file.absolutePath);
        if (!f.open(QIODevice::ReadOnly)) {
            error = QStringLiteral("cannot read %1: %2").arg(file.absolutePath, f.errorString());
            return false;
        }
        hash.addData(file.relativePath.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
        hash.addData(&f);
        hash.addData(QByteArrayView("\0", 1));
    }
    m_hash = QString::fromLatin1(hash.result().toHex().left(16));
    return true;
}

qint64 RunnerBundle::totalBytes() const
{
    qint64 total = 0;
    for (const File &file : m_files)
        total += file.size;
    return total;
}

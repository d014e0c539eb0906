#include "common/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace {
const QString key = QStringLiteral("recentFiles");
}

QStringList RecentFiles::load()
{
    QStringList paths = QSettings().value(key).toStringList();
    paths.removeAll(QString());
    paths.removeDuplicates();
    return paths.mid(0, maxEntries);
}

void RecentFiles::add(const QString &path)
{
    const QString canonical = QFileInfo(path).absoluteFilePath();
    QStringList paths = load();
    paths.removeAll(canonical);
    paths.prepend(canonical);
    save(paths.mid(0, maxEntries));
}

void RecentFiles::remove(const QString &path)
{
    QStringList paths = load();
    paths.removeAll(QFileInfo(path).absoluteFilePath());
    save(paths);
}

void RecentFiles::clear()
{
    save({});
}

void RecentFiles::save(const QStringList &paths)
{
    QSettings settings;
    settings.setValue(key, paths);
    settings.sync();
}

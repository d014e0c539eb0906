#include "common/recentfiles.h"

#include "common/appsettings.h"

#include <QFileInfo>

QStringList RecentFiles::load()
{
    QStringList paths = AppSettings::recentFiles.value();
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
    AppSettings::recentFiles.set(paths);
    QSettings().sync();
}

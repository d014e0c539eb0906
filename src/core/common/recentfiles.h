#pragma once

#include <QStringList>

// Most-recently-used file list, persisted in QSettings (AppSettings::recentFiles). Newest first, no
// duplicates, bounded; entries whose file has vanished are kept (a network share may be offline) but can be
// pruned.
class RecentFiles
{
public:
    static constexpr int maxEntries = 10;

    static QStringList load();
    static void add(const QString &path);
    static void remove(const QString &path);
    static void clear();

private:
    static void save(const QStringList &paths);
};

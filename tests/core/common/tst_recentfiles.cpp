#include "common/recentfiles.h"
#include "isolatedsettings.h"

#include <QDir>
#include <QTest>

class TestRecentFiles : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;

private Q_SLOTS:
    void newestFirstWithoutDuplicates()
    {
        RecentFiles::clear();
        RecentFiles::add(QStringLiteral("/tmp/a.py"));
        RecentFiles::add(QStringLiteral("/tmp/b.py"));
        RecentFiles::add(QStringLiteral("/tmp/a.py"));
        QCOMPARE(RecentFiles::load(),
                 (QStringList{QStringLiteral("/tmp/a.py"), QStringLiteral("/tmp/b.py")}));
    }

    void boundedAndRemovable()
    {
        RecentFiles::clear();
        for (int i = 0; i < RecentFiles::maxEntries + 5; ++i)
            RecentFiles::add(QStringLiteral("/tmp/k%1.py").arg(i));
        QCOMPARE(RecentFiles::load().size(), RecentFiles::maxEntries);
        QCOMPARE(RecentFiles::load().first(), QStringLiteral("/tmp/k%1.py").arg(RecentFiles::maxEntries + 4));
        RecentFiles::remove(RecentFiles::load().first());
        QCOMPARE(RecentFiles::load().size(), RecentFiles::maxEntries - 1);
    }

    void relativePathsBecomeAbsolute()
    {
        RecentFiles::clear();
        RecentFiles::add(QStringLiteral("rel.py"));
        QCOMPARE(RecentFiles::load().first(), QDir::current().absoluteFilePath(QStringLiteral("rel.py")));
    }

    void storedInTheIsolatedFolder()
    {
        RecentFiles::add(QStringLiteral("/tmp/x.py"));
        QVERIFY(
            QDir(m_settings.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot, QDir::Name).size() >
            0);
    }
};

QTEST_GUILESS_MAIN(TestRecentFiles)
#include "tst_recentfiles.moc"

#include "common/appsettings.h"
#include "isolatedsettings.h"

#include <QTest>

// The settings table (issue 35): each key is the one earlier versions wrote, so a user's settings survive the
// move to AppSettings; an unset key reads as its declared default and says it was never stored.
class TestAppSettings : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;

private Q_SLOTS:
    void keysAreTheOnesEarlierVersionsWrote_data()
    {
        QTest::addColumn<QString>("declared");
        QTest::addColumn<QString>("written");
        const auto row = [](const QString &declared, const char *written) {
            QTest::newRow(written) << declared << QString::fromLatin1(written);
        };
        row(AppSettings::theme.key(), "ui/theme");
        row(AppSettings::windowGeometry.key(), "mainWindow/geometry");
        row(AppSettings::windowState.key(), "mainWindow/state");
        row(AppSettings::recentFiles.key(), "recentFiles");
        row(AppSettings::openFiles.key(), "session/openFiles");
        row(AppSettings::currentFile.key(), "session/currentFile");
        row(AppSettings::runHost.key(), "run/host");
        row(AppSettings::runTarget.key(), "run/target");
        row(AppSettings::runSize.key(), "run/size");
        row(AppSettings::compareFold.key(), "compare/fold");
        row(AppSettings::compareContext.key(), "compare/context");
        row(AppSettings::compareUnified.key(), "compare/unified");
        row(AppSettings::exportFolder.key(), "export/folder");
        row(AppSettings::exportReport.key(), "export/report");
        row(AppSettings::optimizeHost.key(), "optimize/host");
        row(AppSettings::optimizeBackend.key(), "optimize/backend");
        row(AppSettings::optimizeTarget.key(), "optimize/target");
        row(AppSettings::optimizeSize.key(), "optimize/size");
        row(AppSettings::optimizeTimeout.key(), "optimize/timeout");
        row(AppSettings::optimizePreset.key(), "optimize/preset");
        row(AppSettings::optimizeConfig.key(), "optimize/config");
        row(AppSettings::optimizeMemory.key(), "optimize/memory");
    }
    void keysAreTheOnesEarlierVersionsWrote()
    {
        QFETCH(QString, declared);
        QFETCH(QString, written);
        QCOMPARE(declared, written);
    }

    void aValueWrittenByAnEarlierVersionIsRead()
    {
        QSettings().setValue(QStringLiteral("run/size"), QStringLiteral("small"));
        QSettings().setValue(QStringLiteral("compare/context"), 7);
        QSettings().setValue(QStringLiteral("optimize/memory"), false);
        QCOMPARE(AppSettings::runSize.value(), QStringLiteral("small"));
        QCOMPARE(AppSettings::compareContext.value(), 7);
        QCOMPARE(AppSettings::optimizeMemory.value(), false);
    }

    void unsetReadsAsTheDefault()
    {
        QSettings().remove(QStringLiteral("run/target"));
        QSettings().remove(QStringLiteral("optimize/host"));
        QCOMPARE(AppSettings::runTarget.value(), QStringLiteral("trn1"));
        QVERIFY(!AppSettings::optimizeHost.stored());
        QCOMPARE(AppSettings::exportFolder.value(QStringLiteral("/home/x")), QStringLiteral("/home/x"));
        AppSettings::optimizeHost.set(QStringLiteral("trn-box"));
        QCOMPARE(AppSettings::optimizeHost.stored(), std::optional<QString>(QStringLiteral("trn-box")));
        QCOMPARE(QSettings().value(QStringLiteral("optimize/host")).toString(), QStringLiteral("trn-box"));
    }
};

QTEST_GUILESS_MAIN(TestAppSettings)
#include "tst_appsettings.moc"

#include "study/studystate.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

// StudyState::loadAll, the Study dock's list: every study in the folder, newest first, each read back to the
// state that was saved; a file that is not a study is named with why and left as it was.
class TestStudyState : public QObject
{
    Q_OBJECT

    static StudyState study(const QString &id, const QString &created)
    {
        StudyState s;
        s.id = id;
        s.created = created;
        s.tasks = {QStringLiteral("swiglu")};
        s.budget = {StudyBudget::Kind::Tokens, 20000, 2};
        QString error;
        s.arms << *ArmSpec::parse(QStringLiteral("mem=beam"), &error)
               << *ArmSpec::parse(QStringLiteral("rs=sample,n=4"), &error);
        s.planRuns();
        return s;
    }

private Q_SLOTS:
    void absentFolderIsNoStudyAndNoProblem()
    {
        QTemporaryDir dir;
        QStringList problems;
        QVERIFY(StudyState::loadAll(dir.filePath(QStringLiteral("nothing-here")), &problems).isEmpty());
        QVERIFY(problems.isEmpty());
    }

    void newestFirstAndBadFilesNamed()
    {
        QTemporaryDir dir;
        const QString studies = StudyState::studiesDir(dir.filePath(QStringLiteral("workspace.sqlite")));
        StudyState older = study(QStringLiteral("aaaa0001"), QStringLiteral("2026-01-05T10:00:00Z"));
        StudyState newer = study(QStringLiteral("bbbb0002"), QStringLiteral("2026-03-01T08:30:00Z"));
        StudyState tie = study(QStringLiteral("0000tie0"), QStringLiteral("2026-03-01T08:30:00Z"));
        newer.runs[0].sessionId = QStringLiteral("0f1e2d3c-session");
        newer.runs[0].checkpoints << StudyState::Checkpoint{1, RunMeasure{}};
        QString error;
        for (const StudyState &s : {older, newer, tie})
            QVERIFY2(s.save(studies, &error), qPrintable(error));
        const QByteArray garbage = "{\"format\": 1, \"id\": \"broken\"";
        QFile bad(studies + QStringLiteral("/broken.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(garbage);
        bad.close();

        QStringList problems;
        const QList<StudyState> all = StudyState::loadAll(studies, &problems);
        QCOMPARE(all.size(), 3);
        // Same time: the id decides, so the order is stable.
        QCOMPARE(all.at(0).id, tie.id);
        QCOMPARE(all.at(1).id, newer.id);
        QCOMPARE(all.at(2).id, older.id);
        QCOMPARE(all.at(1).toJson(), newer.toJson());
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(QStringLiteral("broken.json")) &&
                     problems.first().contains(QStringLiteral("left untouched")),
                 qPrintable(problems.first()));
        QVERIFY(bad.open(QIODevice::ReadOnly));
        QCOMPARE(bad.readAll(), garbage);
    }
};

QTEST_GUILESS_MAIN(TestStudyState)
#include "tst_studystate.moc"

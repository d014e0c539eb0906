#include "study/armspec.h"
#include "study/studystate.h"

#include <QTemporaryDir>
#include <QTest>

// ArmSpec: the --arm grammar, the canonical form, the search settings each mode asks for, the arm's models
// over the base LLM settings, and bad specs told as what, where and what to write.
class TestArmSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void beamDefaultsAndKeys()
    {
        QString error;
        const auto arm = ArmSpec::parse(QStringLiteral("nomem=beam,width=3,plans=4,samples=2,iterations=7,"
                                                       "memory=off"),
                                        &error);
        QVERIFY2(arm, qPrintable(error));
        QCOMPARE(arm->name, QStringLiteral("nomem"));
        QCOMPARE(arm->mode, ArmSpec::Mode::Beam);
        QVERIFY(!arm->memory);
        const SearchConfig c = arm->config();
        QCOMPARE(c.beamWidth, 3);
        QCOMPARE(c.plansPerKernel, 4);
        QCOMPARE(c.samplesPerPlan, 2);
        QCOMPARE(c.iterations, 7);
        QCOMPARE(c.patience, 0);
        QVERIFY(c.isValid());
        QVERIFY(ArmSpec::parse(QStringLiteral("m=beam"), &error)->memory);
    }

    // Repeated sampling: n plans of one sample each from the baseline, one iteration, no memory.
    void sampleIsOneWideIterationWithoutMemory()
    {
        QString error;
        const auto arm = ArmSpec::parse(QStringLiteral("rs=sample,n=32"), &error);
        QVERIFY2(arm, qPrintable(error));
        QVERIFY(!arm->memory);
        const SearchConfig c = arm->config();
        QCOMPARE(c.beamWidth, 1);
        QCOMPARE(c.plansPerKernel, 32);
        QCOMPARE(c.samplesPerPlan, 1);
        QCOMPARE(c.iterations, 1);
        QCOMPARE(c.topK, 0);
        QCOMPARE(c.expN, 0);
        QVERIFY(c.isValid());
    }

    void modelsAreAnEnsembleByWeight()
    {
        QString error;
        const auto arm = ArmSpec::parse(
            QStringLiteral("ens=beam,models=planner:big;executor:small/s-7b@0.5+other@1.5"), &error);
        QVERIFY2(arm, qPrintable(error));
        QCOMPARE(arm->models.size(), 2);
        const QList<ModelRoster::Member> planner{{QStringLiteral("big"), 1.0}};
        QCOMPARE(arm->models.value(AgentRole::Planner), planner);
        const QList<ModelRoster::Member> executor{{QStringLiteral("small"), 0.5, QStringLiteral("s-7b")},
                                                  {QStringLiteral("other"), 1.5}};
        QCOMPARE(arm->models.value(AgentRole::Executor), executor);
        // The canonical spec reads back as the same arm.
        const auto again = ArmSpec::parse(arm->name + u'=' + arm->spec(), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(*again, *arm);
        const auto all = ArmSpec::parse(QStringLiteral("a=sample,models=all:big"), &error);
        QCOMPARE(all->models.size(), 4);
    }

    void modelsOverTheBaseSettings()
    {
        LlmConfig base;
        for (const char *name : {"big", "small"}) {
            Endpoint e;
            e.name = QLatin1String(name);
            e.baseUrl = QStringLiteral("http://127.0.0.1:1/v1");
            e.model = QLatin1String(name) + QStringLiteral("-model");
            base.endpoints << e;
        }
        for (AgentRole role : AgentRoles::all())
            base.roster.assign(role, QStringLiteral("big"));
        QString error;
        const auto arm = ArmSpec::parse(QStringLiteral("x=beam,models=executor:small@2+big"), &error);
        const auto config = arm->llmConfig(base, &error);
        QVERIFY2(config, qPrintable(error));
        QCOMPARE(config->roster.members(AgentRole::Planner), base.roster.members(AgentRole::Planner));
        QCOMPARE(config->roster.members(AgentRole::Executor).size(), 2);
        QVERIFY(config->problems().isEmpty());

        const auto unknown = ArmSpec::parse(QStringLiteral("y=beam,models=planner:nowhere"), &error);
        QVERIFY(!unknown->llmConfig(base, &error));
        QVERIFY2(error.contains(QStringLiteral("'nowhere'")) && error.contains(QStringLiteral("big, small")),
                 qPrintable(error));
    }

    void badSpecsSayWhatWhereAndWhatToDo_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::addColumn<QString>("says");
        QTest::newRow("no name") << "beam"
                                 << "must start with a name";
        QTest::newRow("bad name") << "a b=beam"
                                  << "must start with a name";
        QTest::newRow("mode") << "x=greedy"
                              << "the mode 'greedy' is neither beam nor sample";
        QTest::newRow("unknown key") << "x=beam,depth=3"
                                     << "'depth' is not a key of beam";
        QTest::newRow("sample has no memory") << "x=sample,memory=on"
                                              << "'memory' is not a key of sample";
        QTest::newRow("not a number") << "x=beam,width=wide"
                                      << "width=wide is not a whole number";
        QTest::newRow("zero") << "x=sample,n=0"
                              << "n=0 is not a whole number from 1 to 1000";
        QTest::newRow("twice") << "x=beam,width=1,width=2"
                               << "'width' is given twice";
        QTest::newRow("no value") << "x=beam,memory"
                                  << "'memory' is not KEY=VALUE";
        QTest::newRow("memory word") << "x=beam,memory=maybe"
                                     << "memory=maybe is neither on nor off";
        QTest::newRow("role") << "x=beam,models=critic:big"
                              << "unknown role 'critic'";
        QTest::newRow("no role") << "x=beam,models=big"
                                 << "'big' lacks ROLE:";
        QTest::newRow("weight") << "x=beam,models=planner:big@-1"
                                << "weight '-1' of 'big@-1'";
        QTest::newRow("empty member") << "x=beam,models=planner:@2"
                                      << "names no endpoint";
    }
    void badSpecsSayWhatWhereAndWhatToDo()
    {
        QFETCH(QString, argument);
        QFETCH(QString, says);
        QString error;
        QVERIFY(!ArmSpec::parse(argument, &error));
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("write NAME=beam")), qPrintable(error)); // what to do
    }

    // The study's file: written and read back as it was; a damaged one is refused with its path, untouched.
    void stateRoundTripsThroughItsFile()
    {
        QTemporaryDir dir;
        StudyState s;
        s.id = QStringLiteral("abcd1234");
        s.tasks = {QStringLiteral("swiglu")};
        s.budget = {StudyBudget::Kind::Tokens, 50000, 3};
        QString error;
        s.arms << *ArmSpec::parse(QStringLiteral("a=beam,memory=off"), &error)
               << *ArmSpec::parse(QStringLiteral("b=sample,n=4"), &error);
        s.repeats = 2;
        s.planRuns();
        QCOMPARE(s.runs.size(), 4);
        QCOMPARE(s.runs.at(1).arm, QStringLiteral("b")); // arms alternate within a round
        s.runs[0].sessionId = QStringLiteral("s1");
        RunMeasure m;
        m.bestPercentOfPeak = 12.5;
        m.tokens = 1200;
        s.runs[0].checkpoints << StudyState::Checkpoint{1, m};
        QVERIFY2(s.save(dir.path(), &error), qPrintable(error));
        QCOMPARE(QFile(s.file(dir.path())).permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        const auto back = StudyState::load(dir.path(), QStringLiteral("abcd"), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson(), s.toJson());

        QFile broken(dir.filePath(QStringLiteral("ffff0000.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"format\": 1, \"budget\": {\"kind\": \"euros\"}}");
        broken.close();
        QVERIFY(!StudyState::load(dir.path(), QStringLiteral("ffff"), &error));
        QVERIFY2(error.contains(QStringLiteral("ffff0000.json")) && error.contains(QStringLiteral("euros")),
                 qPrintable(error));
        QVERIFY(!StudyState::load(dir.path(), QStringLiteral("9999"), &error));
        QVERIFY2(error.contains(QStringLiteral("no study '9999'")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestArmSpec)
#include "tst_armspec.moc"

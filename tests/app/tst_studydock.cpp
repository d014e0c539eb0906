#include "appcontext.h"
#include "common/loghub.h"
#include "isolatedsettings.h"
#include "llm/llmconfig.h"
#include "mainwindow.h"
#include "optimizerig.h"
#include "scriptedprompts.h"
#include "store/sessionstore.h"
#include "study/studystate.h"
#include "studydock.h"
#include "studyview.h"
#include "themedchartview.h"

#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QValueAxis>

#include <algorithm>
#include <csignal>

// The workbench's Study dock (issue 36) over a real study: `accelopt study` run by the CLI (OptimizeRig: the
// real binary, the local host with the runner and nkisim, real SQLite files) against ScriptedLlmServer, a
// STAND-IN for hosted models, with two endpoints: "frontier" (priced) plays the fixture's agents, "weak"
// (unpriced) only ever plans a slower kernel. Three arms, two repeats, an evaluations budget in two rounds
// that stops every arm part-way. The dock follows the running study through its file: once it shows a turn
// done, the CLI gets Ctrl+C; the dock then shows a partial study; the CLI resumes it to its end. The table's
// cells and the chart's series are checked against figures worked out here from the workspace's rows and the
// study's checkpoints, a session is opened from the dock by keys and by a double-click, and the dock is
// grabbed at the window's default size and at 1280x800 into test-artifacts.
class TestStudyDock : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    OptimizeRig m_rig;
    OptimizeRig::Workspace m_w;
    std::unique_ptr<MainWindow> m_window;

    static constexpr int budget = 4;

    void writeLlmConfig()
    {
        LlmConfig config;
        for (const char *name : {"frontier", "weak"}) {
            Endpoint e;
            e.name = QLatin1String(name);
            e.baseUrl = m_rig.server.baseUrl();
            e.model = e.name + QStringLiteral("-model");
            e.timeoutMs = 60000;
            e.concurrency = 1;
            config.endpoints << e;
        }
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, QStringLiteral("frontier"));
        config.prices.set(QStringLiteral("frontier-model"),
                          {OptimizeRig::inputPrice, OptimizeRig::outputPrice});
        config.retry.maxAttempts = 1;
        QString error;
        QVERIFY2(config.save(m_w.llm(), &error), qPrintable(error));
    }

    static QStringList studyArgs()
    {
        return {QStringLiteral("study"),
                QStringLiteral("--task"),
                QStringLiteral("swiglu"),
                QStringLiteral("--budget-evals"),
                QString::number(budget),
                QStringLiteral("--slices"),
                QStringLiteral("2"),
                QStringLiteral("--repeats"),
                QStringLiteral("2"),
                QStringLiteral("--jobs"),
                QStringLiteral("1"),
                QStringLiteral("--arm"),
                QStringLiteral("mem=beam,width=1,plans=2,models=all:frontier"),
                QStringLiteral("--arm"),
                QStringLiteral("ens=beam,width=1,plans=2,memory=off,models=planner:frontier+weak"),
                QStringLiteral("--arm"),
                QStringLiteral("rs=sample,n=6,models=planner:weak")};
    }

    StudyDock *dock() const { return m_window->studyDock(); }
    StudyView *view() const { return dock()->view(); }

    StudyState onlyStudy() const
    {
        const QList<StudyState> all = StudyState::loadAll(StudyState::studiesDir(m_w.db()), nullptr);
        return all.size() == 1 ? all.first() : StudyState();
    }

    // One run's result worked out from the workspace's rows: fresh evaluations (not a twin's), their wall
    // time, the best kernel's % of peak and its speedup over the baseline, the calls and their usage (each
    // stand-in reply reports the same), money only when every call had a price.
    struct Hand
    {
        double best = 0;
        double speedup = 0;
        qint64 tokens = 0;
        int evaluations = 0;
        double deviceSeconds = 0;
        int unpriced = 0;
        double usd = 0;
    };
    Hand byHand(const QString &sessionId) const
    {
        SessionStore store(m_w.db());
        Hand h;
        if (!store.open())
            return h;
        double baselineMs = 0;
        for (const Candidate &c : store.candidates(sessionId)) {
            for (int run : {0, 1})
                if (const auto e = store.evaluation(c.id, run); e && e->reusedFrom.isEmpty()) {
                    ++h.evaluations;
                    h.deviceSeconds += e->wallSeconds.value_or(0);
                }
            if (c.parentId.isEmpty() && c.iteration == 0)
                baselineMs = store.evaluation(c.id)->latencyMeanMs.value_or(0);
        }
        const auto best = store.evaluation(store.bestCandidate(sessionId)->id);
        h.best = best->percentOfPeak.value_or(-1);
        h.speedup = baselineMs / best->latencyMeanMs.value_or(1);
        const auto totals = store.statistics().costTotals(sessionId);
        h.unpriced = totals.callsWithoutCost;
        h.tokens = qint64(totals.calls) * (ScriptedAgents::promptTokens + ScriptedAgents::completionTokens);
        h.usd = totals.calls * OptimizeRig::callCost();
        return h;
    }

    // "mean [least-most]" over two repeats, as a person would write it.
    static QString meanAndRange(double a, double b, int decimals)
    {
        return QStringLiteral("%1 [%2-%3]")
            .arg(QString::number((a + b) / 2, 'f', decimals), QString::number(std::min(a, b), 'f', decimals),
                 QString::number(std::max(a, b), 'f', decimals));
    }

    static QList<QPointF> points(const QXYSeries *s) { return s ? s->points() : QList<QPointF>(); }

    template<typename T> T *seriesOf(const char *property, const QString &arm) const
    {
        for (QAbstractSeries *s : view()->chartView()->chart()->series())
            if (s->property(property).toString() == arm)
                return qobject_cast<T *>(s);
        return nullptr;
    }

    void shoot(const QString &name)
    {
        QCoreApplication::processEvents();
        const QString path = QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(name);
        QVERIFY2(m_window->grab().save(path), qPrintable(path));
        const QString dockPath = QString(path).replace(QStringLiteral(".png"), QStringLiteral("-dock.png"));
        QVERIFY2(dock()->grab().save(dockPath), qPrintable(dockPath));
        qInfo("screenshots kept at %s and %s", qPrintable(path), qPrintable(dockPath));
    }

private Q_SLOTS:
    void initTestCase()
    {
        LogHub::install();
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        m_rig.useAgents(m_rig.swiglu);
        m_rig.fault =
            [this](const ScriptedLlmServer::Request &r) -> std::optional<ScriptedLlmServer::Response> {
            if (r.json.value(QStringLiteral("model")).toString() == QStringLiteral("weak-model") &&
                ScriptedAgents::roleOf(r) == QStringLiteral("planner"))
                return ScriptedLlmServer::completion(
                    m_rig.swiglu.plan(QStringLiteral("slow1")),
                    ScriptedLlmServer::Usage{ScriptedAgents::promptTokens, ScriptedAgents::completionTokens});
            return std::nullopt;
        };
        writeLlmConfig();
        // The window reads the same files as the CLI the rig starts.
        const QProcessEnvironment env = m_rig.environment(m_w);
        for (const char *name : {"ACCELOPT_WORKSPACE_DB", "ACCELOPT_MEMORY_DB", "ACCELOPT_LLM_CONFIG",
                                 "ACCELOPT_HOSTS_FILE", "ACCELOPT_NO_KEYCHAIN"})
            qputenv(name, env.value(QLatin1String(name)).toUtf8());
        m_window = std::make_unique<MainWindow>(std::make_shared<ScriptedPrompts>());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    // Before any study: the dock is one key away and says which command makes one.
    void emptyStateNamesTheCommand()
    {
        const auto inSight = [this] { return dock()->isVisible() && !dock()->visibleRegion().isEmpty(); };
        QVERIFY(!inSight()); // tabbed behind the Results dock
        QTest::keyClick(m_window.get(), Qt::Key_U, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(inSight());
        QCOMPARE(QApplication::focusWidget(), dock()->studyChoice());
        QCOMPARE(dock()->studiesDir(), StudyState::studiesDir(m_w.db()));
        QVERIFY(dock()->hint()->isVisible());
        QVERIFY2(dock()->hint()->text().contains(QStringLiteral("accelopt study --task")),
                 qPrintable(dock()->hint()->text()));
        QCOMPARE(dock()->studyChoice()->count(), 0);
        shoot(QStringLiteral("study-empty.png"));
    }

    // The dock follows `accelopt study` as it runs: the moment it shows a finished turn, Ctrl+C; it then
    // shows the stopped study as partial with the command that goes on; the CLI resumes it to its end, and
    // the dock shows the finished study.
    void followsARunningStudyThroughAStopAndResume()
    {
        bool interrupted = false;
        QString seenLive;
        m_rig.whileRunning = [&](const QString &) {
            if (interrupted || dock()->currentStudy().isEmpty())
                return;
            for (const StudyState::Run &run : view()->study().runs)
                if (!run.checkpoints.isEmpty()) {
                    seenLive = view()->sessions()->item(0, StudyView::RunState)->text();
                    interrupted = true;
                    m_rig.signalNow(SIGINT);
                    return;
                }
        };
        const OptimizeRig::Run stopped = m_rig.cli(m_w, studyArgs());
        m_rig.whileRunning = nullptr;
        QVERIFY2(interrupted, qPrintable(QStringLiteral("the dock never showed a finished turn while the "
                                                        "study ran: ") +
                                         stopped.err));
        QVERIFY2(stopped.exitCode == 130, qPrintable(stopped.err));
        QVERIFY2(stopped.err.contains(QStringLiteral("--resume")), qPrintable(stopped.err));
        const StudyState partial = onlyStudy();
        QVERIFY(!partial.id.isEmpty());
        QVERIFY(!partial.finished);
        qInfo().noquote() << "first run's state while live:" << seenLive;
        QTRY_VERIFY_WITH_TIMEOUT(view()->study().toJson() == partial.toJson(), 30000);
        QVERIFY2(view()->summary()->text().contains(QStringLiteral("accelopt study --resume ") + partial.id),
                 qPrintable(view()->summary()->text()));
        QVERIFY(!dock()->hint()->isVisible());

        const OptimizeRig::Run resumed =
            m_rig.cli(m_w, {QStringLiteral("study"), QStringLiteral("--resume"), partial.id});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        const StudyState done = onlyStudy();
        QVERIFY(done.finished);
        QTRY_VERIFY_WITH_TIMEOUT(view()->study().finished, 30000);
        QCOMPARE(view()->study().toJson(), done.toJson());
        QVERIFY2(view()->summary()->text().contains(QStringLiteral("finished")),
                 qPrintable(view()->summary()->text()));
        QVERIFY2(dock()->studyChoice()->currentText().startsWith(done.id),
                 qPrintable(dock()->studyChoice()->currentText()));
    }

    // Every cell of the table against the workspace's rows, the chart's lines and bands against the
    // checkpoints, worked out here.
    void tableAndChartMatchAHandComputation()
    {
        const StudyState study = onlyStudy();
        QVERIFY(study.finished);
        QCOMPARE(study.runs.size(), 6);
        QMap<QString, QList<Hand>> byArm;
        for (const StudyState::Run &run : study.runs)
            byArm[run.arm] << byHand(run.sessionId);

        QTableWidget *table = view()->table();
        QCOMPARE(table->rowCount(), 3);
        QStringList unpricedArms;
        for (int r = 0; r < table->rowCount(); ++r) {
            const QString arm = table->item(r, StudyView::Arm)->text();
            const QList<Hand> &h = byArm.value(arm);
            QCOMPARE(h.size(), 2);
            const auto text = [&](int column) { return table->item(r, column)->text(); };
            QCOMPARE(text(StudyView::Task), QStringLiteral("swiglu"));
            QCOMPARE(text(StudyView::Repeats), QStringLiteral("2"));
            QCOMPARE(text(StudyView::BestPercent), meanAndRange(h[0].best, h[1].best, 2));
            QCOMPARE(text(StudyView::Speedup), meanAndRange(h[0].speedup, h[1].speedup, 3));
            QCOMPARE(text(StudyView::Tokens), QString::number((h[0].tokens + h[1].tokens) / 2.0, 'f', 0));
            QCOMPARE(text(StudyView::Evaluations),
                     QString::number((h[0].evaluations + h[1].evaluations) / 2.0, 'f', 1));
            QCOMPARE(text(StudyView::DeviceSeconds),
                     QString::number((h[0].deviceSeconds + h[1].deviceSeconds) / 2, 'f', 2));
            if (h[0].unpriced == 0 && h[1].unpriced == 0) {
                QCOMPARE(text(StudyView::Usd), QString::number((h[0].usd + h[1].usd) / 2, 'f', 4));
            } else {
                unpricedArms << arm;
                QCOMPARE(text(StudyView::Usd), QStringLiteral("unpriced"));
                QVERIFY2(table->item(r, StudyView::Usd)->toolTip().contains(QStringLiteral("no price")),
                         qPrintable(table->item(r, StudyView::Usd)->toolTip()));
            }
            // The budget stopped the arm part-way: no run went far past it.
            QVERIFY(h[0].evaluations <= budget + 2 && h[1].evaluations <= budget + 2);
        }
        QVERIFY(unpricedArms.contains(QStringLiteral("rs")));
        QVERIFY(!unpricedArms.contains(QStringLiteral("mem")));
        QVERIFY2(view()->summary()->text().contains(QStringLiteral("Compared on tokens: USD unknown for ")) &&
                     view()->summary()->toolTip() == StudyResult(study).note(),
                 qPrintable(view()->summary()->text()));

        // The chart: tokens across (some arm is unpriced, and the axis says so), one line per arm with a
        // point per round at the mean tokens and mean best % of peak of both repeats by then; where the
        // repeats differ, a band from the lesser to the greater.
        QChart *chart = view()->chartView()->chart();
        const QList<QAbstractAxis *> across = chart->axes(Qt::Horizontal);
        QCOMPARE(across.size(), 1);
        const QString title = across.first()->titleText();
        QVERIFY2(title.contains(QStringLiteral("tokens")) && title.contains(QStringLiteral("rs")) &&
                     title.contains(QStringLiteral("unpriced")),
                 qPrintable(title));
        for (const QString &arm : {QStringLiteral("mem"), QStringLiteral("ens"), QStringLiteral("rs")}) {
            QList<QPointF> line, lower, upper;
            for (int round = 1; round <= 2; ++round) {
                QList<const RunMeasure *> at;
                for (const StudyState::Run &run : study.runs) {
                    if (run.arm != arm)
                        continue;
                    const RunMeasure *m = nullptr;
                    for (const StudyState::Checkpoint &c : run.checkpoints)
                        if (c.round <= round)
                            m = &c.measure;
                    at << m;
                }
                QCOMPARE(at.size(), 2);
                const double tokens = (at[0]->tokens + at[1]->tokens) / 2.0;
                const double a = *at[0]->bestPercentOfPeak, b = *at[1]->bestPercentOfPeak;
                line << QPointF(tokens, (a + b) / 2);
                lower << QPointF(tokens, std::min(a, b));
                upper << QPointF(tokens, std::max(a, b));
            }
            const QLineSeries *series = seriesOf<QLineSeries>("arm", arm);
            QVERIFY2(series, qPrintable(arm));
            QCOMPARE(series->name(), arm);
            const QList<QPointF> got = points(series);
            QCOMPARE(got.size(), line.size());
            for (int i = 0; i < got.size(); ++i) {
                QCOMPARE(got[i].x(), line[i].x());
                QVERIFY2(qAbs(got[i].y() - line[i].y()) < 1e-9, qPrintable(arm));
            }
            const bool differ = lower != upper;
            const QAreaSeries *band = seriesOf<QAreaSeries>("band", arm);
            QCOMPARE(band != nullptr, differ);
            if (band) {
                QCOMPARE(points(band->lowerSeries()), lower);
                QCOMPARE(points(band->upperSeries()), upper);
            }
            qInfo().noquote() << arm << "line" << got << (differ ? "band" : "no spread");
        }
        shoot(QStringLiteral("study-default.png"));
        m_window->resize(1280, 800);
        QTRY_COMPARE(m_window->size(), QSize(1280, 800));
        shoot(QStringLiteral("study-1280x800.png"));
    }

    // The arms' sessions: a click on the tab, a click on a row and Enter opens it in the Search dock, as the
    // Sessions dock's Open does; a double-click opens another.
    void opensAnArmsSessionByKeysAndClicks()
    {
        const StudyState study = onlyStudy();
        QTabWidget *tabs = view()->tabs();
        QTabBar *bar = tabs->tabBar();
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(1).center());
        QCOMPARE(tabs->currentWidget(), view()->sessions());
        QTableWidget *sessions = view()->sessions();
        QCOMPARE(sessions->rowCount(), int(study.runs.size()));
        for (int r = 0; r < sessions->rowCount(); ++r) {
            QCOMPARE(sessions->item(r, StudyView::RunArm)->text(), study.runs.at(r).arm);
            QCOMPARE(sessions->item(r, StudyView::RunSession)->text(), study.runs.at(r).sessionId.left(8));
        }
        shoot(QStringLiteral("study-sessions.png"));
        const auto rowCenter = [sessions](int row) {
            sessions->scrollToItem(sessions->item(row, 0));
            return sessions->visualItemRect(sessions->item(row, StudyView::RunArm)).center();
        };
        QTest::mouseClick(sessions->viewport(), Qt::LeftButton, {}, rowCenter(2));
        QCOMPARE(sessions->currentRow(), 2);
        QTest::keyClick(sessions, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->context()->shownSessionId(), study.runs.at(2).sessionId, 30000);
        // As a person's double-click arrives: a press and release, then the second press as a double-click.
        const QPoint fifth = rowCenter(5);
        QTest::mouseClick(sessions->viewport(), Qt::LeftButton, {}, fifth);
        QTest::mouseDClick(sessions->viewport(), Qt::LeftButton, {}, fifth);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->context()->shownSessionId(), study.runs.at(5).sessionId, 30000);
    }
};

QTEST_MAIN(TestStudyDock)
#include "tst_studydock.moc"

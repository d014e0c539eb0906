#include "appcontext.h"
#include "calibrationview.h"
#include "common/loghub.h"
#include "editortabs.h"
#include "estimateview.h"
#include "isolatedsettings.h"
#include "itemmodels/searchstate.h"
#include "kerneleditor.h"
#include "mainwindow.h"
#include "profiledock.h"
#include "scriptedprompts.h"
#include "store/sessionstore.h"
#include "timelineview.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QScatterSeries>
#include <QSettings>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

// The Profile dock after a real Benchmark (F5) on the local host (runner and nkisim, small size): every pane
// filled, the heat gutter in the editor, a click on an instruction of the timeline moving the editor to its
// line, a range's busy time, a pinned baseline's deltas, and the exports (PNG, SVG, a Chrome trace that
// Python's json loads with every field the trace-event format requires).
class TestProfile : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;
    std::shared_ptr<ScriptedPrompts> m_prompts;
    std::unique_ptr<MainWindow> m_window;

    static QString silu(const QString &file)
    {
        return file == QStringLiteral("baseline.py") ? QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py")
                                                     : QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu/") + file;
    }
    QString artifact(const QString &name) const { return QStringLiteral(ACCELOPT_TEST_ARTIFACTS "/") + name; }
    ProfileDock *dock() const { return m_window->profileDock(); }
    // F5 on the file's tab, then wait for its profile.
    bool benchmark(const QString &path)
    {
        if (!m_window->openFile(path))
            return false;
        const std::optional<Evaluation> before = dock()->current();
        QTest::keyClick(m_window->editors()->currentEditor(), Qt::Key_F5);
        return QTest::qWaitFor(
            [&] {
                const std::optional<Evaluation> now = dock()->current();
                return now && (!before || now->raw != before->raw);
            },
            180000);
    }
    static int barSets(QChartView *view)
    {
        for (QAbstractSeries *s : view->chart()->series())
            if (auto *bars = qobject_cast<QAbstractBarSeries *>(s))
                return int(bars->count());
        return 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        LogHub::install();
        QVERIFY(m_dir.isValid());
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace.sqlite")).toUtf8());
        qputenv("ACCELOPT_MEMORY_DB", m_dir.filePath(QStringLiteral("memory.sqlite")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        QSettings().setValue(QStringLiteral("run/size"), QStringLiteral("small"));
        m_prompts = std::make_shared<ScriptedPrompts>();
        m_window = std::make_unique<MainWindow>(m_prompts);
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }
    void cleanupTestCase() { m_window.reset(); }

    void benchmarkFillsEveryPane()
    {
        QVERIFY2(benchmark(silu(QStringLiteral("baseline.py"))), "no profile after F5");
        const Evaluation e = *dock()->current();
        QVERIFY2(e.ok(), qPrintable(e.error));
        QVERIFY(e.profile);
        dock()->show();
        dock()->raise();
        for (const char *name : {"latency", "peak", "bound", "mfu", "hfu", "mbu", "dma"})
            QVERIFY2(dock()->figure(QLatin1StringView(name))->text() != QStringLiteral("—"), name);
        QVERIFY(dock()->findings()->count() > 0);
        QVERIFY(dock()->hottestLines()->topLevelItemCount() > 0);
        QCOMPARE(barSets(dock()->chartView(QStringLiteral("engines"))), 1);
        QCOMPARE(barSets(dock()->chartView(QStringLiteral("memory"))), 1);
        int points = 0;
        for (QAbstractSeries *s : dock()->chartView(QStringLiteral("roofline"))->chart()->series())
            if (auto *scatter = qobject_cast<QScatterSeries *>(s))
                points += int(scatter->count());
        QCOMPARE(points, 1); // this kernel; no session is open
        QVERIFY(dock()->timeline()->hasEvents());
        QVERIFY(dock()->timeline()->rowCount() >= 5); // four engines and at least one DMA queue
        // The Estimate tab: the effects behind nkisim's figure, as `accelopt bench --explain` prints them.
        QVERIFY(e.profile->explanation);
        QTreeWidget *effects = dock()->estimate()->effects();
        QCOMPARE(effects->topLevelItemCount(), int(e.profile->explanation->effects.size()));
        QVERIFY2(dock()->estimate()->headline()->text().contains(QStringLiteral("bound by Vector")),
                 qPrintable(dock()->estimate()->headline()->text()));
        QCOMPARE(effects->topLevelItem(0)->text(2), QStringLiteral("data-proportional compute"));

        // The line costs add up to the engines' busy time, and the heat gutter marks the hottest line.
        EvalProfile::EngineTimes sum{};
        for (const EvalProfile::LineCost &c : e.profile->lineCosts)
            for (int k = 0; k < EvalProfile::EngineCount; ++k)
                sum[k] += c.ns[k];
        for (int k = 0; k < EvalProfile::EngineCount; ++k)
            QVERIFY(std::abs(sum[k] - e.profile->engineBusyNs[k]) <= 1e-6 * std::max(1.0, e.profile->engineBusyNs[k]));
        KernelEditor *editor = m_window->editors()->currentEditor();
        const int hottest = e.profile->hottest(1).first().line;
        QCOMPARE(editor->heatLevel(hottest), KernelEditor::heatLevels - 1);
        QVERIFY(editor->heatToolTip(hottest).contains(QStringLiteral("line %1").arg(hottest)));
        QCOMPARE(editor->heatLevel(1), 0); // an import: no instructions

        // One truth per figure: the roofline's bound and the busiest engine are two lines; the arithmetic
        // intensity is the Roofline tab's x (the task's FLOPs per HBM byte), not TensorE's 0; HFU says it counts
        // TensorE, whose 0 % sits below an MFU measured against VectorE's roof.
        QCOMPARE(dock()->figure(QStringLiteral("bound"))->text(), QStringLiteral("memory"));
        QVERIFY2(dock()->figure(QStringLiteral("engine"))->text().startsWith(QStringLiteral("VectorE, active ")),
                 qPrintable(dock()->figure(QStringLiteral("engine"))->text()));
        const double flops = e.rooflineFigure("flops");
        const double bytes = e.memoryTraffic().hbmRead.value_or(0) + e.memoryTraffic().hbmWrite.value_or(0);
        QCOMPARE(dock()->figure(QStringLiteral("ai"))->text(),
                 QStringLiteral("%1 FLOP/B").arg(flops / bytes, 0, 'g', 3));
        QVERIFY(dock()->figure(QStringLiteral("ai"))->text() != QStringLiteral("0 FLOP/B"));
        QVERIFY(dock()->hottestLines()->headerItem()->text(2) == QStringLiteral("Engine time"));
        QVERIFY(dock()->hottestLines()->headerItem()->toolTip(2).contains(QStringLiteral("DMA queues")));

        QTabWidget *tabs = dock()->tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QTest::qWait(50);
            QVERIFY(m_window->grab().save(artifact(QStringLiteral("profile-%1.png").arg(tabs->tabText(i).toLower()))));
        }
    }

    // The Calibration tab (issue 34): kernels timed on nkisim in one session and measured on a hardware host
    // in another, read from the window's workspace through the engine, as a table and a log-log scatter.
    void calibrationTabShowsTheWorkspacesPairs()
    {
        {
            SessionStore store(m_window->context()->workspacePath());
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            // nkisim and the device (the stand-in's model: 3 us + 1.8x for DMA-bound, 1.2x for VectorE-bound)
            const QList<std::tuple<QString, double, QString>> kernels{
                {QStringLiteral("a"), 0.004, QStringLiteral("memory")},
                {QStringLiteral("b"), 0.040, QStringLiteral("memory")},
                {QStringLiteral("c"), 0.020, QStringLiteral("vector")}};
            for (const bool hardware : {false, true}) {
                SessionRecord s;
                s.taskName = QStringLiteral("silu");
                s.target = QStringLiteral("trn1");
                QVERIFY(store.createSession(s));
                Candidate base;
                base.sessionId = s.id;
                base.origin = Candidate::Origin::Baseline;
                base.source = QStringLiteral("def kernel(x):\n    return x\n");
                QVERIFY(store.addCandidate(base));
                int plan = 0;
                for (const auto &[name, ms, bound] : kernels) {
                    Candidate c;
                    c.sessionId = s.id;
                    c.iteration = 1;
                    c.parentId = base.id;
                    c.planIndex = plan++;
                    c.sampleIndex = 0;
                    // distinct code: the kernel hash ignores comments
                    c.source = QStringLiteral("def kernel(x):\n    return x * %1  # %2\n")
                                   .arg(c.planIndex + 2)
                                   .arg(name);
                    QVERIFY(store.addCandidate(c));
                    Evaluation e;
                    e.status = EvalStatus::Ok;
                    e.correct = true;
                    e.bound = bound;
                    e.backend = hardware ? QStringLiteral("neuron") : QStringLiteral("sim");
                    e.host = hardware ? QStringLiteral("trn-standin#0") : QStringLiteral("local#0");
                    e.sdk =
                        hardware ? QStringLiteral("Neuron SDK 2.33 (stand-in)") : QStringLiteral("nkisim");
                    e.latencyMeanMs =
                        hardware ? 0.003 + ms * (bound == QStringLiteral("memory") ? 1.8 : 1.2) : ms;
                    QVERIFY(store.addEvaluation(c.id, e));
                }
            }
        }
        m_window->resize(1280, 800);
        dock()->show();
        dock()->raise();
        QTabWidget *tabs = dock()->tabs();
        tabs->setCurrentIndex(tabs->indexOf(dock()->calibrationView()));
        CalibrationView *view = dock()->calibrationView();
        // The tab may have been open already (no tab change, so no refresh): Refresh reads the workspace again.
        QPushButton *reload = view->findChild<QPushButton *>();
        QVERIFY(reload && reload->text() == QStringLiteral("Refresh"));
        reload->click();
        QTRY_COMPARE_WITH_TIMEOUT(view->calibration().pairs().size(), 3, 20000);
        auto *pairs = view->findChildren<QTableWidget *>().value(1);
        QVERIFY(pairs);
        QCOMPARE(pairs->rowCount(), 3);
        // a: (0.004 - 0.0102) / 0.0102
        QCOMPARE(pairs->item(0, 6)->text(),
                 QStringLiteral("%1 %").arg((0.004 - 0.0102) / 0.0102 * 100, 0, 'f', 1));
        QCOMPARE(pairs->item(0, 7)->text(), QStringLiteral("trn-standin"));
        auto *groups = view->findChildren<QTableWidget *>().value(0);
        QCOMPARE(groups->rowCount(), 2); // memory and vector on trn1
        int points = 0, lines = 0;
        for (QAbstractSeries *s : view->findChild<QChartView *>()->chart()->series()) {
            if (auto *scatter = qobject_cast<QScatterSeries *>(s))
                points += int(scatter->count());
            else if (qobject_cast<QLineSeries *>(s))
                ++lines; // the identity line
        }
        QCOMPARE(points, 3);
        QCOMPARE(lines, 1);
        QTest::qWait(50);
        QVERIFY(m_window->grab().save(artifact(QStringLiteral("profile-calibration-1280x800.png"))));
        m_window->resize(1600, 1000);
    }

    // A hardware evaluation whose host could not read Neuron Explorer's tables (no pyarrow, SDK 2.34+) gets its
    // profile from a CSV export of the Explorer UI (issue 34): the stand-in's export of the add kernel
    // (tests/fixtures/runner/explorer_csv), imported from the dock, drawn in every pane and the heat gutter.
    void importedExplorerExportDrawsAHardwareEvaluation()
    {
        const QString fixtures = QStringLiteral(ACCELOPT_TEST_FIXTURES "/runner/explorer_csv/");
        const QString kernelPath = m_dir.filePath(QStringLiteral("hw_add.py"));
        QVERIFY(QFile::copy(fixtures + QStringLiteral("kernel.py"), kernelPath));
        QFile kernel(kernelPath);
        QVERIFY(kernel.open(QIODevice::ReadOnly));
        QString candidateId;
        {
            SessionStore store(m_window->context()->workspacePath());
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            SessionRecord s;
            s.taskName = QStringLiteral("add");
            s.target = QStringLiteral("trn2");
            QVERIFY(store.createSession(s));
            Candidate c;
            c.sessionId = s.id;
            c.origin = Candidate::Origin::Baseline;
            c.source = QString::fromUtf8(kernel.readAll());
            QVERIFY(store.addCandidate(c));
            Evaluation e;
            e.status = EvalStatus::Ok;
            e.correct = true;
            e.backend = QStringLiteral("neuron");
            e.host = QStringLiteral("trn-standin#1");
            e.sdk = QStringLiteral("Neuron SDK 2.33 (stand-in)");
            e.latencyMeanMs = 0.009314427345194987;
            QFile summary(fixtures + QStringLiteral("summary.json")); // the stand-in eval's metrics
            QVERIFY(summary.open(QIODevice::ReadOnly));
            e.metrics = QJsonDocument::fromJson(summary.readAll()).object();
            e.raw.insert(QStringLiteral("profile"),
                         QJsonObject{{QStringLiteral("source"), QStringLiteral("neuron-explorer")},
                                     {QStringLiteral("available"), false},
                                     {QStringLiteral("missing"),
                                      QJsonObject{{QStringLiteral("timeline"), QStringLiteral("no pyarrow")}}}});
            e.profile = Evaluation::profileFrom(e.raw);
            QVERIFY(store.addEvaluation(c.id, e));
            candidateId = c.id;
        }
        QVERIFY(m_window->openFile(kernelPath));
        KernelEditor *editor = m_window->editors()->currentEditor();
        std::optional<Evaluation> stored;
        {
            SessionStore store(m_window->context()->workspacePath());
            QVERIFY(store.open());
            stored = store.evaluation(candidateId);
        }
        QVERIFY(stored);
        m_window->resize(1280, 800);
        dock()->show();
        dock()->raise();
        dock()->showEvaluation(*stored, QStringLiteral("add on trn-standin (hardware)"), editor);
        QVERIFY(!dock()->importButton()->isHidden());
        QCOMPARE(dock()->hottestLines()->topLevelItemCount(), 0);

        m_prompts->profileExportAnswer = {fixtures + QStringLiteral("Instruction.csv"),
                                          fixtures + QStringLiteral("DmaPacketAggregated.csv")};
        dock()->importButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(dock()->current()->profile && dock()->current()->profile->available, 60000);
        QVERIFY2(m_prompts->warnings.isEmpty(), qPrintable(m_prompts->warnings.join(u'\n')));
        const EvalProfile &p = *dock()->current()->profile;
        QCOMPARE(p.source, QStringLiteral("neuron-explorer"));
        QCOMPARE(p.engineBusyNs[EvalProfile::Dma], 7463.0); // by hand: the fixture's README
        // the hottest line is the load of b (2955 ns of DMA); the gutter marks it, the timeline draws the run
        QCOMPARE(dock()->hottestLines()->topLevelItem(0)->data(0, Qt::UserRole).toInt(), 14);
        QCOMPARE(editor->heatLevel(14), KernelEditor::heatLevels - 1);
        QCOMPARE(editor->heatLevel(1), 0);
        QVERIFY(dock()->timeline()->hasEvents());
        QTabWidget *tabs = dock()->tabs();
        for (int i : {0, tabs->indexOf(dock()->timelineTab())}) {
            tabs->setCurrentIndex(i);
            QTest::qWait(50);
            QVERIFY(m_window->grab().save(
                artifact(QStringLiteral("profile-hardware-%1-1280x800.png").arg(tabs->tabText(i).toLower()))));
        }

        // an nkisim evaluation has nothing to import
        Evaluation sim = *stored;
        sim.backend = QStringLiteral("sim");
        dock()->showEvaluation(sim, QStringLiteral("sim"), nullptr);
        QVERIFY(dock()->importButton()->isHidden());
        m_window->resize(1600, 1000);
    }

    void theRooflinePlotsOnlyThisTasksSessionPoints()
    {
        // The open session's candidates of another task were drawn beside "This kernel".
        QVERIFY2(benchmark(silu(QStringLiteral("baseline.py"))), "no profile after F5");
        const Evaluation here = *dock()->current();
        SearchState *state = m_window->context()->search();
        const auto tell = [state](SearchEventData data) {
            SearchEvent e;
            e.sessionId = QStringLiteral("other-session");
            e.data = std::move(data);
            state->apply(e);
        };
        tell(SearchEvents::SessionStarted{});
        const auto row = [&](const QString &id, const QString &task) {
            Candidate c;
            c.id = id;
            c.sessionId = QStringLiteral("other-session");
            c.iteration = 1;
            tell(SearchEvents::CandidateCreated{c});
            Evaluation e = here;
            e.raw.insert(QStringLiteral("task"), task);
            tell(SearchEvents::EvaluationFinished{id, 1, e, false});
        };
        row(QStringLiteral("c-matmul"), QStringLiteral("matmul"));
        row(QStringLiteral("c-silu"), here.raw.value(QStringLiteral("task")).toString());
        const auto points = [this] {
            int n = 0;
            for (QAbstractSeries *s : dock()->chartView(QStringLiteral("roofline"))->chart()->series())
                if (auto *scatter = qobject_cast<QScatterSeries *>(s))
                    n += int(scatter->count());
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(points(), 2, 30000); // this kernel and the session's silu candidate
        state->clear();
    }

    void timelineClickMovesTheEditorAndARangeSumsBusyTime()
    {
        TimelineView *timeline = dock()->timeline();
        dock()->tabs()->setCurrentWidget(dock()->timelineTab());
        timeline->showAll();
        QTest::qWait(50);
        const EvalProfile::Timeline &t = *dock()->current()->profile->timeline;
        // The longest instruction that has a line: wide enough to hit.
        int event = -1;
        for (int i = 0; i < t.count(); ++i)
            if (t.line.at(i) > 0 && (event < 0 || t.durNs.at(i) > t.durNs.at(event)))
                event = i;
        QVERIFY(event >= 0);
        const QPoint at = timeline->pointOf(event);
        QCOMPARE(timeline->eventAt(at), event);
        QVERIFY(timeline->describe(event).contains(QStringLiteral("line %1").arg(t.line.at(event))));
        KernelEditor *editor = m_window->editors()->currentEditor();
        editor->setCursorPosition(0, 0);
        QTest::mouseClick(timeline, Qt::LeftButton, {}, at);
        int line = 0, index = 0;
        editor->getCursorPosition(&line, &index);
        QCOMPARE(line + 1, t.line.at(event));

        // Shift+drag over the whole run (zoomed out a little, so the drag starts before it): each engine's busy
        // time, as the profile totals it.
        timeline->zoom(0.9, (timeline->visibleStart() + timeline->visibleEnd()) / 2);
        QVERIFY(timeline->visibleStart() < 0);
        const QPoint from(timeline->width() - 2, timeline->height() - 4);
        QTest::mousePress(timeline, Qt::LeftButton, Qt::ShiftModifier, QPoint(TimelineView::labelWidthForTests() + 1, 30));
        QMouseEvent move(QEvent::MouseMove, QPointF(from), timeline->mapToGlobal(QPointF(from)), Qt::NoButton,
                         Qt::LeftButton, Qt::ShiftModifier);
        QCoreApplication::sendEvent(timeline, &move);
        QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ShiftModifier, from);
        QVERIFY(timeline->hasSelection());
        const EvalProfile::EngineTimes busy = timeline->selectionBusy();
        if (!t.truncated)
            for (int k = 0; k < EvalProfile::Dma; ++k)
                // The timeline rounds each start and duration to 0.01 ns.
                QVERIFY2(std::abs(busy[k] - dock()->current()->profile->engineBusyNs[k]) <= 0.01 * t.count(),
                         qPrintable(QStringLiteral("%1: %2 vs %3 (visible %4..%5)")
                                        .arg(EvalProfile::engineName(k))
                                        .arg(busy[k])
                                        .arg(dock()->current()->profile->engineBusyNs[k])
                                        .arg(timeline->visibleStart())
                                        .arg(timeline->visibleEnd())));
        QVERIFY(dock()->selectionLabel()->text().startsWith(QStringLiteral("Busy in the selected range")));
        // Zoom in around the event: it stays under the cursor.
        timeline->zoom(8, t.startNs.at(event) + t.durNs.at(event) / 2);
        QCOMPARE(timeline->eventAt(timeline->pointOf(event)), event);
    }

    void pinnedBaselineShowsDeltas()
    {
        QTest::mouseClick(dock()->pinButton(), Qt::LeftButton);
        QVERIFY(dock()->baseline());
        m_prompts->itemAnswers = {QStringLiteral("silu")}; // fast1.py is no task's file: F5 asks once
        QVERIFY2(benchmark(silu(QStringLiteral("fast1.py"))), "no profile after F5");
        QVERIFY(dock()->figure(QStringLiteral("latency"))->text().contains(QStringLiteral("× baseline")));
        QCOMPARE(barSets(dock()->chartView(QStringLiteral("engines"))), 2);
        QCOMPARE(barSets(dock()->chartView(QStringLiteral("memory"))), 2);
        QVERIFY(*dock()->current()->latencyMeanMs < *dock()->baseline()->latencyMeanMs);
        int roofPoints = 0;
        for (QAbstractSeries *s : dock()->chartView(QStringLiteral("roofline"))->chart()->series())
            if (auto *scatter = qobject_cast<QScatterSeries *>(s))
                roofPoints += int(scatter->count());
        QCOMPARE(roofPoints, 2); // this kernel and the pinned baseline
        dock()->tabs()->setCurrentIndex(0);
        QVERIFY(m_window->grab().save(artifact(QStringLiteral("profile-baseline.png"))));
    }

    void exportsChartsAndAChromeTrace()
    {
        QTabWidget *tabs = dock()->tabs();
        QString error;
        tabs->setCurrentWidget(dock()->chartView(QStringLiteral("engines")));
        const QString png = m_dir.filePath(QStringLiteral("engines.png")), svg = m_dir.filePath(QStringLiteral("engines.svg"));
        QVERIFY2(dock()->exportCurrent(png, error), qPrintable(error));
        QVERIFY2(dock()->exportCurrent(svg, error), qPrintable(error));
        QVERIFY(QImage(png).width() > 100);
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("<svg"));
        QVERIFY(!dock()->exportCurrent(m_dir.filePath(QStringLiteral("engines.bmp")), error));
        QVERIFY(error.contains(QStringLiteral(".png or .svg")));

        tabs->setCurrentWidget(dock()->timelineTab());
        const QString trace = m_dir.filePath(QStringLiteral("trace.json"));
        m_prompts->exportAnswers = {trace};
        dock()->exportWithDialog();
        QVERIFY(QFile::exists(trace));
        // Python's json module reads it, and every event has the fields its phase requires.
        QProcess python;
        python.start(QStringLiteral(ACCELOPT_TEST_PYTHON),
                     {QStringLiteral("-c"),
                      QStringLiteral("import json,sys\n"
                                     "d = json.load(open(sys.argv[1]))\n"
                                     "ev = d['traceEvents']\n"
                                     "need = {'X': ('name','ph','ts','dur','pid','tid'), 'M': ('name','ph','pid','args')}\n"
                                     "bad = [e for e in ev if e['ph'] not in need or any(k not in e for k in need[e['ph']])]\n"
                                     "x = [e for e in ev if e['ph'] == 'X']\n"
                                     "assert not bad, bad[:3]\n"
                                     "assert all(e['dur'] >= 0 and e['ts'] >= 0 and 'line' in e['args'] for e in x)\n"
                                     "print(len(x))\n"),
                      trace});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        QCOMPARE(python.readAllStandardOutput().trimmed().toInt(), dock()->current()->profile->timeline->count());
    }
};

QTEST_MAIN(TestProfile)
#include "tst_profile.moc"

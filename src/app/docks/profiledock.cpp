#include "profiledock.h"

#include "advice/advisor.h"
#include "advice/ruleset.h"
#include "appcontext.h"
#include "calibrationview.h"
#include "diff/metricdeltas.h"
#include "estimateview.h"
#include "itemmodels/searchstate.h"
#include "kerneleditor.h"
#include "profile/chrometrace.h"
#include "profilecharts.h"
#include "themedchartview.h"
#include "timelineview.h"
#include "userprompts.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
const char *figureNames[] = {"latency", "peak", "bound", "engine", "mfu", "hfu", "mbu", "ai", "dma"};

// The engine (or the DMA queues together) active for the largest share of the run, as the profile's metrics say.
std::optional<std::pair<QString, double>> busiestEngine(const Evaluation &e)
{
    static const std::pair<const char *, const char *> engines[] = {
        {"tensor_engine_active_time_percent", "TensorE"}, {"vector_engine_active_time_percent", "VectorE"},
        {"scalar_engine_active_time_percent", "ScalarE"}, {"gpsimd_engine_active_time_percent", "GpSimdE"},
        {"dma_active_time_percent", "DMA"}};
    std::optional<std::pair<QString, double>> best;
    for (const auto &[key, name] : engines)
        if (const std::optional<double> v = e.metric(QLatin1StringView(key)); v && (!best || *v > best->second))
            best = std::pair{QString::fromLatin1(name), *v};
    return best;
}

QString engineTime(double ns)
{
    if (ns <= 0)
        return QStringLiteral("–");
    if (ns < 1e3)
        return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
    if (ns < 1e6)
        return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', 2);
    return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
}

// A figure with, when a baseline is pinned, its ratio to the baseline's.
QString withDelta(const QString &text, std::optional<double> now, std::optional<double> before, bool lowerIsBetter)
{
    if (!now || !before || *before == 0)
        return text;
    const double ratio = *now / *before;
    const bool same = std::abs(ratio - 1) < 0.005;
    const bool better = lowerIsBetter ? ratio < 1 : ratio > 1;
    const QString color = same ? QStringLiteral("#808080") : better ? QStringLiteral("#1b7a35") : QStringLiteral("#b3261e");
    return QStringLiteral("%1 <span style='color:%2'>(%3× baseline)</span>").arg(text, color).arg(ratio, 0, 'f', 3);
}
} // namespace

ProfileDock::ProfileDock(AppContext *context, UserPrompts *prompts, QWidget *parent)
    : QDockWidget(tr("Profile"), parent), m_context(context), m_prompts(prompts)
{
    setObjectName(QStringLiteral("ProfileDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *header = new QHBoxLayout;
    m_heading = new QLabel(tr("Benchmark a kernel (F5), or open a candidate from the Search dock, to see its profile."), body);
    m_heading->setWordWrap(true);
    m_heading->setTextFormat(Qt::RichText);
    m_pin = new QPushButton(tr("Pin as Baseline"), body);
    m_pin->setToolTip(tr("Compare every pane against this evaluation"));
    m_unpin = new QPushButton(tr("Clear Baseline"), body);
    m_export = new QPushButton(tr("Export…"), body);
    m_export->setToolTip(tr("The visible chart as PNG or SVG, or the timeline as a Chrome trace (Perfetto)"));
    m_import = new QPushButton(tr("Import Explorer CSV…"), body);
    m_import->setToolTip(tr("Attach a device profile to this hardware evaluation: in Neuron Explorer's Device "
                            "Trace Viewer, Export to CSV the Instructions and the DMA transfers (aggregated by "
                            "queue) of the whole run, unsampled, and choose the files"));
    header->addWidget(m_heading, 1);
    header->addWidget(m_import);
    header->addWidget(m_pin);
    header->addWidget(m_unpin);
    header->addWidget(m_export);
    layout->addLayout(header);

    m_tabs = new QTabWidget(body);
    // Summary: the figures, the findings and the hottest lines.
    m_summary = new QWidget(m_tabs);
    auto *summaryLayout = new QVBoxLayout(m_summary);
    auto *grid = new QGridLayout;
    // What bounds the task's roofline and what keeps this kernel busy are two different facts: two lines.
    const QStringList labels{tr("Latency"),    tr("% of peak"), tr("Roofline bound"),
                             tr("Busiest engine"), tr("MFU"), tr("HFU (TensorE)"),
                             tr("MBU"),        tr("Arithmetic intensity"), tr("Average DMA size")};
    const QStringList tips{
        {},
        {},
        tr("What limits the task at the hardware's peaks: its arithmetic intensity against the ridge point"),
        tr("The engine (or the DMA queues together) active for the largest share of this kernel's run"),
        tr("The task's FLOPs over the latency, against the roofline's compute peak: TensorE's when most of the "
           "task's arithmetic is matrix multiplies, else VectorE's"),
        tr("TensorE's hardware FLOPs over the latency, against TensorE's peak: 0 when the kernel issues no "
           "matrix multiply"),
        tr("HBM bytes moved over the latency, against the HBM bandwidth"),
        tr("The task's FLOPs per byte of HBM traffic, the x of the Roofline tab"),
        {}};
    for (int i = 0; i < labels.size(); ++i) {
        auto *name = new QLabel(labels.at(i) + u':', m_summary);
        name->setToolTip(tips.at(i));
        auto *value = new QLabel(QStringLiteral("—"), m_summary);
        value->setObjectName(QLatin1StringView(figureNames[i]));
        value->setTextFormat(Qt::RichText);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid->addWidget(name, i / 2, (i % 2) * 2);
        grid->addWidget(value, i / 2, (i % 2) * 2 + 1);
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    summaryLayout->addLayout(grid);
    auto *split = new QSplitter(Qt::Vertical, m_summary);
    m_findings = new QListWidget(split);
    m_findings->setWordWrap(true);
    m_findings->setToolTip(tr("What the profile suggests, and the metric that says so"));
    m_hottest = new QTreeWidget(split);
    m_hottest->setRootIsDecorated(false);
    m_hottest->setHeaderLabels({tr("Line"), tr("Share"), tr("Engine time"), tr("Tensor"), tr("Vector"),
                                tr("Scalar"), tr("GpSimd"), tr("DMA"), tr("Instr."), tr("Bytes")});
    // Engines and the 16 DMA queues run side by side: a line's engine time can exceed the kernel's latency.
    m_hottest->headerItem()->setToolTip(
        2, tr("The time this line keeps engines busy, summed over the engines and the DMA queues; engines and "
              "queues run in parallel, so it can exceed the kernel's latency"));
    m_hottest->headerItem()->setToolTip(7, tr("Summed over the DMA queues"));
    m_hottest->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_hottest->header()->setStretchLastSection(false);
    m_hottest->setToolTip(tr("The lines that take the most time; click one to go there"));
    split->addWidget(m_findings);
    split->addWidget(m_hottest);
    summaryLayout->addWidget(split, 1);
    m_findings->setMinimumHeight(40);
    m_hottest->setMinimumHeight(60);
    auto *summaryScroll = new QScrollArea(m_tabs);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setWidget(m_summary);
    m_tabs->addTab(summaryScroll, tr("Summary"));
    m_estimate = new EstimateView(m_tabs);
    m_tabs->addTab(m_estimate, tr("Estimate"));
    m_tabs->setTabToolTip(m_tabs->count() - 1, tr("Which modelled effects make up nkisim's estimate"));

    const auto chartTab = [this](const QString &name, const QString &title) {
        auto *view = new ThemedChartView(m_tabs);
        view->setObjectName(name);
        view->setMinimumSize(200, 80); // the chart's own minimum would hold the window's height up
        view->setRenderHint(QPainter::Antialiasing);
        view->setChart(new QChart);
        ThemedChartView::style(view->chart(), view->palette());
        m_tabs->addTab(view, title);
        return view;
    };
    m_engines = chartTab(QStringLiteral("engines"), tr("Engines"));
    m_memory = chartTab(QStringLiteral("memory"), tr("Memory"));
    m_roofline = chartTab(QStringLiteral("roofline"), tr("Roofline"));
    m_progress = chartTab(QStringLiteral("progress"), tr("Progress"));

    auto *timelineTab = new QWidget(m_tabs);
    auto *timelineLayout = new QVBoxLayout(timelineTab);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    // Twenty DMA queues make a tall view: it scrolls rather than push the window's minimum height up.
    auto *timelineScroll = new QScrollArea(timelineTab);
    timelineScroll->setWidgetResizable(true);
    timelineScroll->setFrameShape(QFrame::NoFrame);
    m_timeline = new TimelineView(timelineScroll);
    timelineScroll->setWidget(m_timeline);
    m_selection = new QLabel(tr("Wheel: zoom · drag: pan · Shift+drag: sum busy time in a range · click: go to "
                                "the line"),
                             timelineTab);
    m_selection->setWordWrap(true);
    timelineLayout->addWidget(timelineScroll, 1);
    timelineLayout->addWidget(m_selection);
    m_tabs->addTab(timelineTab, tr("Timeline"));
    m_timelineTab = timelineTab;
    // In a scroll area, as the summary: its tables and wrapped lines would otherwise set the window's minimum
    // height (tst_mainwindow caught the window growing by 70 px on restart).
    auto *calibrationScroll = new QScrollArea(m_tabs);
    calibrationScroll->setWidgetResizable(true);
    calibrationScroll->setFrameShape(QFrame::NoFrame);
    m_calibration = new CalibrationView(m_context, calibrationScroll);
    calibrationScroll->setWidget(m_calibration);
    m_tabs->addTab(calibrationScroll, tr("Calibration"));
    m_tabs->setTabToolTip(m_tabs->count() - 1,
                          tr("nkisim's predictions against a hardware host's measurements, per kernel"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this, calibrationScroll](int index) {
        if (m_tabs->widget(index) == calibrationScroll)
            m_calibration->refresh(); // the workspace may have new measurements since
    });
    layout->addWidget(m_tabs, 1);
    setWidget(body);

    connect(m_pin, &QPushButton::clicked, this, &ProfileDock::pinBaseline);
    connect(m_unpin, &QPushButton::clicked, this, &ProfileDock::clearBaseline);
    connect(m_export, &QPushButton::clicked, this, &ProfileDock::exportWithDialog);
    connect(m_import, &QPushButton::clicked, this, &ProfileDock::importProfileExport);
    connect(context, &AppContext::profileImported, this,
            [this](quint64 job, const Evaluation &evaluation, const QString &error) {
                if (job != m_importJob)
                    return;
                m_importJob = 0;
                if (!error.isEmpty()) {
                    m_prompts->warn(this, tr("Import Explorer CSV"), error);
                } else if (m_current && m_current->id == evaluation.id) {
                    showEvaluation(evaluation, m_title, m_editor);
                    return;
                }
                refresh();
            });
    connect(m_hottest, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        Q_EMIT lineActivated(m_editor, item->data(0, Qt::UserRole).toInt());
    });
    connect(m_hottest, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        Q_EMIT lineActivated(m_editor, item->data(0, Qt::UserRole).toInt());
    });
    connect(m_timeline, &TimelineView::lineActivated, this, [this](int line) { Q_EMIT lineActivated(m_editor, line); });
    connect(m_timeline, &TimelineView::selectionChanged, this, [this] {
        if (!m_timeline->hasSelection()) {
            m_selection->setText(tr("No range selected (Shift+drag to select one)."));
            return;
        }
        const EvalProfile::EngineTimes busy = m_timeline->selectionBusy();
        QStringList parts;
        for (int e = 0; e < EvalProfile::EngineCount; ++e)
            parts << QStringLiteral("%1 %2").arg(EvalProfile::engineLabel(e), engineTime(busy[e]));
        m_selection->setText(tr("Busy in the selected range: %1").arg(parts.join(QStringLiteral(" · "))));
    });
    // A live search changes the ranking many times a second; the two session charts are rebuilt once per
    // burst, not once per event, so the window's thread stays free.
    m_sessionCharts = new QTimer(this);
    m_sessionCharts->setSingleShot(true);
    m_sessionCharts->setInterval(250);
    connect(m_sessionCharts, &QTimer::timeout, this, [this] {
        refreshRoofline();
        refreshProgress();
    });
    const auto later = [this] { m_sessionCharts->start(); };
    for (auto signal : {&SearchState::reset, &SearchState::rankingChanged})
        connect(context->search(), signal, this, later);
    connect(context->search(), &SearchState::iterationChanged, this, later);
    refresh();
}

void ProfileDock::showEvaluation(const Evaluation &evaluation, const QString &title, KernelEditor *editor)
{
    m_current = evaluation;
    m_title = title;
    m_editor = editor;
    if (editor)
        editor->setHeat(evaluation.profile);
    refresh();
}

void ProfileDock::importProfileExport()
{
    if (!m_current || !m_current->onHardware())
        return;
    const QStringList files = m_prompts->openProfileExport(this);
    if (files.isEmpty())
        return;
    m_importJob = m_context->importProfile(m_current->id, files);
    refresh();
}

void ProfileDock::pinBaseline()
{
    if (!m_current)
        return;
    m_baseline = m_current;
    m_baselineTitle = m_title;
    refresh();
}

void ProfileDock::clearBaseline()
{
    m_baseline.reset();
    refresh();
}

QChartView *ProfileDock::chartView(const QString &name) const
{
    return findChild<QChartView *>(name);
}

QLabel *ProfileDock::figure(const QString &name) const
{
    return findChild<QLabel *>(name);
}

void ProfileDock::refresh()
{
    m_pin->setEnabled(m_current.has_value());
    m_unpin->setEnabled(m_baseline.has_value());
    m_export->setEnabled(m_current.has_value());
    m_import->setVisible(m_current && m_current->onHardware());
    m_import->setEnabled(m_importJob == 0);
    if (m_current) {
        QString heading = QStringLiteral("<b>%1</b>").arg(m_title.toHtmlEscaped());
        if (m_baseline)
            heading += tr(" · baseline: %1").arg(m_baselineTitle.toHtmlEscaped());
        m_heading->setText(heading);
    }
    refreshSummary();
    refreshCharts();
    refreshRoofline();
    refreshProgress();
    m_timeline->setProfile(m_current ? m_current->profile : nullptr);
    m_estimate->setProfile(m_current ? m_current->profile : nullptr);
}

void ProfileDock::refreshFindings()
{
    m_findings->clear();
    if (!m_current)
        return;
    const QList<Finding> findings = Advisor::evaluate(RuleSet::shipped(), *m_current);
    if (findings.isEmpty()) {
        m_findings->addItem(RuleSet::shipped().rules().isEmpty()
                                ? tr("No recommendations: the rules (%1) did not load; see the Log dock.")
                                      .arg(RuleSet::shipped().source())
                                : tr("No recommendations: no rule fires on this profile."));
        return;
    }
    for (const Finding &f : findings) {
        QStringList because;
        for (const Evidence &e : f.evidence)
            because << e.text();
        auto *item = new QListWidgetItem(QStringLiteral("%1 %2\n%3").arg(f.severity == Severity::Warning ? QStringLiteral("⚠") : QStringLiteral("ℹ"), f.title, f.advice));
        item->setToolTip(tr("Fired because %1 (rule %2)").arg(because.join(QStringLiteral("; ")), f.ruleId));
        m_findings->addItem(item);
    }
}

void ProfileDock::refreshSummary()
{
    for (const char *name : figureNames) {
        figure(QLatin1StringView(name))->setText(QStringLiteral("—"));
        figure(QLatin1StringView(name))->setToolTip(QString());
    }
    m_hottest->clear();
    refreshFindings();
    if (!m_current)
        return;
    const Evaluation &e = *m_current;
    const std::optional<Evaluation> &b = m_baseline;
    const auto metric = [](const std::optional<Evaluation> &ev, const char *key) -> std::optional<double> {
        return ev ? ev->metric(QLatin1StringView(key)) : std::nullopt;
    };
    const auto pct = [](std::optional<double> fraction) {
        return fraction ? QStringLiteral("%1 %").arg(*fraction * 100, 0, 'f', 1) : QStringLiteral("—");
    };
    if (e.latencyMeanMs)
        figure(QStringLiteral("latency"))
            ->setText(withDelta(QStringLiteral("%1 ms").arg(*e.latencyMeanMs, 0, 'g', 4), e.latencyMeanMs,
                                b ? b->latencyMeanMs : std::nullopt, true));
    else
        figure(QStringLiteral("latency"))->setText(e.statusName());
    if (e.percentOfPeak)
        figure(QStringLiteral("peak"))->setText(withDelta(QStringLiteral("%1 %").arg(*e.percentOfPeak, 0, 'f', 1),
                                                          e.percentOfPeak, b ? b->percentOfPeak : std::nullopt, false));
    // Why a figure is missing (a task without roofline formulas, say): the runner's words, where one looks.
    figure(QStringLiteral("peak"))->setToolTip(e.warnings.join(u'\n'));
    figure(QStringLiteral("bound"))->setText(e.bound.isEmpty() ? QStringLiteral("—") : e.bound);
    if (const auto busiest = busiestEngine(e))
        figure(QStringLiteral("engine"))
            ->setText(tr("%1, active %2 of the run").arg(busiest->first, pct(busiest->second)));
    // MFU: the task's own arithmetic over the latency against the compute roof; HFU/MBU as the profile says.
    const double flops = e.rooflineFigure("flops");
    const double peak = e.rooflineFigure("peak_flops_per_s");
    if (flops > 0 && peak > 0 && e.latencyMeanMs && *e.latencyMeanMs > 0)
        figure(QStringLiteral("mfu"))->setText(pct(flops / (*e.latencyMeanMs * 1e-3) / peak));
    figure(QStringLiteral("hfu"))->setText(withDelta(pct(metric(m_current, "hfu_estimated_percent")),
                                                     metric(m_current, "hfu_estimated_percent"),
                                                     metric(b, "hfu_estimated_percent"), false));
    figure(QStringLiteral("mbu"))->setText(withDelta(pct(metric(m_current, "mbu_estimated_percent")),
                                                     metric(m_current, "mbu_estimated_percent"),
                                                     metric(b, "mbu_estimated_percent"), false));
    // The roofline's own figure, so the summary and the Roofline tab say one number; TensorE's alone beside it.
    if (const std::optional<ProfileCharts::RooflinePoint> point = ProfileCharts::pointOf(e))
        figure(QStringLiteral("ai"))->setText(QStringLiteral("%1 FLOP/B").arg(point->intensity, 0, 'g', 3));
    if (const std::optional<double> ai = metric(m_current, "mm_arithmetic_intensity"))
        figure(QStringLiteral("ai"))->setToolTip(tr("TensorE's matrix-multiply FLOPs per HBM byte: %1").arg(*ai, 0, 'g', 3));
    if (const std::optional<double> dma = e.dmaAverageBytes()) {
        MetricDelta d;
        d.unit = QStringLiteral("B");
        figure(QStringLiteral("dma"))
            ->setText(withDelta(MetricDeltas::format(d, dma), dma, b ? b->dmaAverageBytes() : std::nullopt, false));
    }

    if (!e.profile) {
        auto *item = new QTreeWidgetItem(m_hottest, {QString(), tr("no line costs: the host sent no profile")});
        item->setFlags(Qt::NoItemFlags);
        return;
    }
    const double total = e.profile->totalLineNs();
    const QLocale locale;
    for (const EvalProfile::LineCost &c : e.profile->hottest(12)) {
        QStringList cells{QString::number(c.line), QStringLiteral("%1 %").arg(total > 0 ? 100 * c.totalNs() / total : 0, 0, 'f', 1),
                          engineTime(c.totalNs())};
        for (double ns : c.ns)
            cells << engineTime(ns);
        cells << locale.toString(c.instructions) << locale.toString(c.bytes);
        auto *item = new QTreeWidgetItem(m_hottest, cells);
        item->setData(0, Qt::UserRole, c.line);
        for (int col = 1; col < cells.size(); ++col)
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
    }
}

void ProfileDock::setChart(QChartView *view, QChart *chart)
{
    QChart *old = view->chart();
    ThemedChartView::style(chart, view->palette());
    view->setChart(chart);
    delete old;
}

void ProfileDock::refreshCharts()
{
    if (!m_current) {
        setChart(m_engines, new QChart);
        setChart(m_memory, new QChart);
        return;
    }
    setChart(m_engines, ProfileCharts::engines(*m_current, m_baseline));
    setChart(m_memory, ProfileCharts::memory(*m_current, m_baseline));
}

void ProfileDock::refreshRoofline()
{
    const SearchState *state = m_context->search();
    std::optional<ProfileCharts::Roof> roof = m_current ? ProfileCharts::roofOf(*m_current) : std::nullopt;
    QList<ProfileCharts::RooflinePoint> points;
    // The open session's candidates belong on this chart only when they solve this kernel's task: another
    // task's points beside "This kernel" compare nothing.
    const auto taskOf = [](const Evaluation &e) {
        return std::pair{e.raw.value(QStringLiteral("task")).toString(), e.raw.value(QStringLiteral("target")).toString()};
    };
    const auto sameTask = [&](const Evaluation &e) { return !m_current || taskOf(e) == taskOf(*m_current); };
    for (int i = 0; i < state->rowCount(); ++i) {
        const SearchState::Row &row = state->row(i);
        if (!row.evaluation || !sameTask(*row.evaluation))
            continue;
        if (!roof)
            roof = ProfileCharts::roofOf(*row.evaluation);
        std::optional<ProfileCharts::RooflinePoint> p = ProfileCharts::pointOf(*row.evaluation);
        if (!p)
            continue;
        p->candidateId = row.candidate.id;
        if (row.candidate.id == state->summary().bestCandidateId)
            p->kind = ProfileCharts::RooflinePoint::Kind::Best;
        else if (row.candidate.origin == Candidate::Origin::Baseline)
            p->kind = ProfileCharts::RooflinePoint::Kind::Baseline;
        points << *p;
    }
    if (m_current)
        if (std::optional<ProfileCharts::RooflinePoint> p = ProfileCharts::pointOf(*m_current)) {
            p->kind = ProfileCharts::RooflinePoint::Kind::Current;
            points << *p;
        }
    // The pinned baseline too, when it solves the same task (the same roof).
    if (m_baseline && m_current && ProfileCharts::roofOf(*m_baseline).has_value() && roof &&
        ProfileCharts::roofOf(*m_baseline)->peakFlopsPerSecond == roof->peakFlopsPerSecond)
        if (std::optional<ProfileCharts::RooflinePoint> p = ProfileCharts::pointOf(*m_baseline)) {
            p->kind = ProfileCharts::RooflinePoint::Kind::Baseline;
            points << *p;
        }
    if (!roof) {
        auto *empty = new QChart;
        empty->setTitle(tr("Roofline: benchmark a kernel of a task with arithmetic to see it"));
        setChart(m_roofline, empty);
        return;
    }
    QChart *chart = ProfileCharts::roofline(*roof, points);
    // A click on a candidate's point opens it.
    for (QAbstractSeries *s : chart->series())
        if (auto *scatter = qobject_cast<QScatterSeries *>(s))
            connect(scatter, &QScatterSeries::clicked, this, [this, points](const QPointF &at) {
                const ProfileCharts::RooflinePoint *nearest = nullptr;
                double best = 1e300;
                for (const ProfileCharts::RooflinePoint &p : points) {
                    const double d = std::hypot(std::log10(p.intensity / at.x()), std::log10(p.flopsPerSecond / at.y()));
                    if (!p.candidateId.isEmpty() && d < best) {
                        best = d;
                        nearest = &p;
                    }
                }
                if (nearest)
                    Q_EMIT candidateActivated(nearest->candidateId);
            });
    setChart(m_roofline, chart);
}

void ProfileDock::refreshProgress()
{
    const SearchState *state = m_context->search();
    QMap<int, double> bestByIteration;
    for (int i = 0; i < state->rowCount(); ++i) {
        const SearchState::Row &row = state->row(i);
        if (row.evaluation && row.evaluation->ok() && row.evaluation->isCorrect() && row.evaluation->percentOfPeak)
            bestByIteration[row.candidate.iteration] =
                std::max(bestByIteration.value(row.candidate.iteration), *row.evaluation->percentOfPeak);
    }
    QList<QPointF> byIteration, byCost;
    double best = 0;
    const QMap<int, double> &cost = state->summary().costAtIteration;
    for (auto it = bestByIteration.cbegin(); it != bestByIteration.cend(); ++it) {
        best = std::max(best, it.value());
        byIteration << QPointF(it.key(), best);
        if (it.key() == 0)
            byCost << QPointF(0, best);
        else if (cost.contains(it.key()))
            byCost << QPointF(cost.value(it.key()), best);
    }
    if (byIteration.isEmpty()) {
        auto *empty = new QChart;
        empty->setTitle(tr("Search progress: open or start a session"));
        setChart(m_progress, empty);
        return;
    }
    setChart(m_progress, ProfileCharts::progress(byIteration, byCost));
}

bool ProfileDock::exportCurrent(const QString &path, QString &error) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (m_tabs->currentWidget() == m_timelineTab && suffix == QStringLiteral("json")) {
        if (!m_current || !m_current->profile || !m_current->profile->timeline) {
            error = tr("there is no timeline to export");
            return false;
        }
        return ChromeTrace::write(path, *m_current->profile->timeline, m_title, error);
    }
    QWidget *widget = m_tabs->currentWidget();
    if (suffix == QStringLiteral("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
        svg.setTitle(m_title);
        QPainter painter;
        if (!painter.begin(&svg)) {
            error = tr("cannot write %1").arg(path);
            return false;
        }
        widget->render(&painter);
        painter.end();
        return true;
    }
    if (suffix == QStringLiteral("png")) {
        if (!widget->grab().save(path, "PNG")) {
            error = tr("cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    error = tr("%1: choose a .png or .svg file (or .json on the Timeline tab, for a Chrome trace)").arg(path);
    return false;
}

void ProfileDock::exportWithDialog()
{
    const bool timeline = m_tabs->currentWidget() == m_timelineTab;
    const QString filter = timeline ? tr("Chrome trace (*.json);;PNG image (*.png);;SVG image (*.svg)")
                                    : tr("PNG image (*.png);;SVG image (*.svg)");
    const QString path = m_prompts->exportFileName(this, tr("Export %1").arg(m_tabs->tabText(m_tabs->currentIndex())), filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCurrent(path, error))
        m_prompts->warn(this, tr("Export"), error);
}

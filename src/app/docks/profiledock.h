#pragma once

#include "model/evaluation.h"

#include <QDockWidget>
#include <QPointer>

#include <optional>

class AppContext;
class CalibrationView;
class EstimateView;
class KernelEditor;
class QChartView;
class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;
class QTimer;
class QTreeWidget;
class TimelineView;
class UserPrompts;

// Where a kernel's time went, for the kernel shown (the last Benchmark, or a candidate opened from a session):
// summary figures with the recommendations and the hottest lines, engine utilization, memory traffic, the
// roofline with the session's candidates, the search's progress, and the instruction timeline. Any
// evaluation can be pinned as the baseline; every pane then shows it beside the current one, with deltas.
// Charts export to PNG and SVG, the timeline to Chrome trace-event JSON.
class ProfileDock : public QDockWidget
{
    Q_OBJECT
public:
    ProfileDock(AppContext *context, UserPrompts *prompts, QWidget *parent = nullptr);

    // `editor`: where the kernel's lines are (the heat gutter, and a click on a line or instruction jumps
    // there); may be null.
    void showEvaluation(const Evaluation &evaluation, const QString &title, KernelEditor *editor);
    std::optional<Evaluation> current() const { return m_current; }
    void pinBaseline();
    void clearBaseline();
    std::optional<Evaluation> baseline() const { return m_baseline; }

    TimelineView *timeline() const { return m_timeline; }
    QWidget *timelineTab() const { return m_timelineTab; }
    CalibrationView *calibrationView() const { return m_calibration; }
    QTabWidget *tabs() const { return m_tabs; }
    QChartView *chartView(const QString &name) const; // "engines", "memory", "roofline", "progress"
    QTreeWidget *hottestLines() const { return m_hottest; }
    EstimateView *estimate() const { return m_estimate; }
    QListWidget *findings() const { return m_findings; }
    QLabel *figure(const QString &name) const; // "latency", "peak", "bound", "engine", "mfu", "hfu", "mbu", "ai", "dma"
    QLabel *selectionLabel() const { return m_selection; }
    QPushButton *pinButton() const { return m_pin; }
    // Shown for a hardware evaluation: attaches a Neuron Explorer CSV export as its profile.
    QPushButton *importButton() const { return m_import; }
    void importProfileExport();

    // The visible chart, or the timeline, to a file; the format from the suffix (.png, .svg, .json for the
    // timeline's trace). false with the reason in `error`.
    bool exportCurrent(const QString &path, QString &error) const;

Q_SIGNALS:
    void lineActivated(KernelEditor *editor, int line);
    void candidateActivated(const QString &candidateId);

private:
    void refresh();
    void refreshSummary();
    void refreshFindings();
    void refreshCharts();
    void refreshRoofline();
    void refreshProgress();
    void setChart(QChartView *view, class QChart *chart);
public:
    void exportWithDialog();

private:

    AppContext *m_context;
    UserPrompts *m_prompts;
    std::optional<Evaluation> m_current;
    std::optional<Evaluation> m_baseline;
    QString m_title, m_baselineTitle;
    QPointer<KernelEditor> m_editor;
    QLabel *m_heading;
    QPushButton *m_pin, *m_unpin, *m_export, *m_import;
    quint64 m_importJob = 0;
    QTabWidget *m_tabs;
    QWidget *m_summary;
    QTreeWidget *m_hottest;
    QListWidget *m_findings;
    QChartView *m_engines, *m_memory, *m_roofline, *m_progress;
    TimelineView *m_timeline;
    EstimateView *m_estimate;
    QWidget *m_timelineTab;
    CalibrationView *m_calibration;
    QLabel *m_selection;
    QTimer *m_sessionCharts; // coalesces the session's change signals
};

#include "optimizedialog.h"

#include "appcontext.h"

#include "common/appsettings.h"
#include "export/taskdetector.h"
#include "llm/llmconfig.h"
#include "model/targets.h"
#include "model/taskcatalog.h"
#include "model/tasksources.h"
#include "taskquestion.h"
#include "theme.h"
#include "ui_optimizedialog.h"

#include <QFileInfo>
#include <QShowEvent>
#include <QJsonDocument>
#include <QPushButton>

namespace {
constexpr int detectedRole = Qt::UserRole + 1; // a task found from the file, not from the catalog

QString keyProblem(const Endpoint &endpoint)
{
    switch (endpoint.keySource) {
    case Endpoint::KeySource::None:
        return {};
    case Endpoint::KeySource::Environment:
        return qEnvironmentVariableIsEmpty(endpoint.keyEnvVar.toLocal8Bit().constData())
                   ? QObject::tr("its key variable $%1 is not set").arg(endpoint.keyEnvVar)
                   : QString();
    case Endpoint::KeySource::Keychain:
        return {}; // asked when the search starts; a missing key then stops it with a message
    }
    return {};
}
// The combo's entry for a task ref: by its folder (one path may be written two ways), else by equal refs.
int indexOfTask(const QComboBox *combo, const QJsonObject &ref)
{
    const QString dir = ref.value(QStringLiteral("dir")).toString();
    for (int i = 0; i < combo->count(); ++i) {
        const QJsonObject other = combo->itemData(i).toJsonObject();
        if (dir.isEmpty() ? other == ref
                          : QFileInfo(dir).canonicalFilePath() ==
                                QFileInfo(other.value(QStringLiteral("dir")).toString()).canonicalFilePath())
            return i;
    }
    return -1;
}
} // namespace

OptimizeDialog::OptimizeDialog(AppContext *context, const Kernel &kernel, const QList<HostConfig> &hosts,
                               const QString &tasksDir, UserPrompts *prompts, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::OptimizeDialog>()), m_context(context), m_kernel(kernel),
      m_hosts(hosts), m_tasksDir(tasksDir), m_prompts(prompts)
{
    m_ui->setupUi(this);
    connect(m_context, &AppContext::llmConfigLoaded, this,
            [this](quint64 job, const std::optional<LlmConfig> &config, const QString &error, const QStringList &) {
                if (job == m_modelsJob)
                    showModels(config, error);
            });
    connect(m_context, &AppContext::llmConfigChanged, this, &OptimizeDialog::refreshModels);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setDefault(true);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_ui->kernelLabel->setText(
        tr("Optimize <b>%1</b>%2")
            .arg(kernel.name.toHtmlEscaped(),
                 kernel.path.isEmpty() ? QString() : QStringLiteral(" — ") + kernel.path.toHtmlEscaped()));

    // The task: found from the file when it can be, else chosen.
    const std::optional<TaskDetector::Found> found =
        TaskDetector::detect(kernel.path, kernel.source, tasksDir);
    // Every task the program sees from the kernel's file (its project's, the user's, NKIBench's), as F5 asks.
    for (const TaskCatalog::Entry &entry : TaskQuestion::usable(tasksDir, kernel.path))
        m_ui->taskCombo->addItem(TaskQuestion::label(entry), entry.ref());
    if (found) {
        int index = indexOfTask(m_ui->taskCombo, found->ref);
        if (index < 0) {
            m_ui->taskCombo->insertItem(0, found->name, found->ref);
            index = 0;
        }
        m_ui->taskCombo->setItemData(index, true, detectedRole);
        m_ui->taskCombo->setCurrentIndex(index);
        m_ui->taskNote->setText(tr("Found from the file: %1.").arg(found->how.toHtmlEscaped()));
    } else {
        m_ui->taskCombo->setCurrentIndex(-1);
        m_ui->taskNote->setText(
            tr("This kernel's task could not be found from its file: choose the task whose "
               "reference it must match, or make a new task from this kernel."));
    }
    connect(m_ui->newTaskButton, &QPushButton::clicked, this, &OptimizeDialog::newTask);

    for (const HostConfig &h : hosts)
        m_ui->hostCombo->addItem(h.name);
    // The two-stage evaluation (issue 34): only a Neuron host can confirm what nkisim timed.
    m_ui->confirmCombo->addItem(tr("none"), QString());
    for (const HostConfig &h : hosts)
        if (h.backend == QLatin1String("neuron"))
            m_ui->confirmCombo->addItem(h.name, h.name);
    m_ui->backendCombo->addItem(tr("sim (nkisim)"), QStringLiteral("sim"));
    m_ui->backendCombo->addItem(tr("neuron (Trainium)"), QStringLiteral("neuron"));
    m_ui->targetCombo->addItems(Targets::all());
    m_ui->sizeCombo->addItem(tr("full (NKIBench sizes)"), QStringLiteral("full"));
    m_ui->sizeCombo->addItem(tr("small (quick)"), QStringLiteral("small"));
    m_ui->timeoutSpin->setValue(600);
    for (const QString &name : SearchConfig::presetNames())
        m_ui->presetCombo->addItem(name, name);
    m_ui->presetCombo->addItem(tr("custom"), QString());
    m_ui->presetCombo->setCurrentIndex(m_ui->presetCombo->findData(QStringLiteral("interactive")));
    applyPreset();

    connect(m_ui->presetCombo, &QComboBox::activated, this, &OptimizeDialog::applyPreset);
    connect(m_ui->hostCombo, &QComboBox::currentIndexChanged, this, &OptimizeDialog::hostChanged);
    // Changing a number by hand makes the settings custom.
    for (QSpinBox *spin : {m_ui->beamSpin, m_ui->plansSpin, m_ui->samplesSpin, m_ui->iterationsSpin,
                           m_ui->fixSpin, m_ui->patienceSpin})
        connect(spin, &QSpinBox::valueChanged, this, [this] {
            std::optional<SearchConfig> preset =
                SearchConfig::preset(m_ui->presetCombo->currentData().toString());
            if (preset) { // neither is part of a preset
                preset->checkAll = m_ui->checkAllCheck->isChecked();
                preset->confirmOn = readConfig().confirmOn;
            }
            if (!m_showingPreset && readConfig() != preset)
                m_ui->presetCombo->setCurrentIndex(m_ui->presetCombo->findData(QString()));
        });
    connect(m_ui->modelsWarning, &QLabel::linkActivated, this, [this] { Q_EMIT modelsRequested(); });
    restore();
    refreshModels();
    m_ui->taskCombo->setFocus();
}

OptimizeDialog::~OptimizeDialog() = default;

void OptimizeDialog::setDefaults(const QString &host, const QString &target, const QString &size)
{
    auto pick = [](QComboBox *box, const QString &text, bool byData) {
        const int i = byData ? box->findData(text) : box->findText(text);
        if (i >= 0)
            box->setCurrentIndex(i);
    };
    if (!AppSettings::optimizeHost.stored())
        pick(m_ui->hostCombo, host, false);
    if (!AppSettings::optimizeTarget.stored())
        pick(m_ui->targetCombo, target, false);
    if (!AppSettings::optimizeSize.stored())
        pick(m_ui->sizeCombo, size, true);
}

void OptimizeDialog::refreshModels()
{
    m_modelsJob = m_context->loadLlmConfig();
}

void OptimizeDialog::showModels(const std::optional<LlmConfig> &config, const QString &error)
{
    QStringList lines, problems;
    if (!config) {
        problems << error.toHtmlEscaped();
    } else {
        for (AgentRole role : AgentRoles::all()) {
            const QList<ModelRoster::Member> members = config->roster.members(role);
            QStringList models;
            for (const ModelRoster::Member &m : members) {
                const Endpoint *e = config->endpoint(m.endpoint);
                // The member's own model when it names one of the endpoint's: one endpoint may serve several.
                models << (e ? QStringLiteral("%1 (%2)").arg(e->name, m.model.isEmpty() ? e->model : m.model)
                             : m.endpoint)
                              .toHtmlEscaped();
                if (!e)
                    problems << tr("the %1 uses endpoint '%2', which does not exist")
                                    .arg(AgentRoles::name(role), m.endpoint.toHtmlEscaped());
                else if (const QString key = keyProblem(*e); !key.isEmpty())
                    problems << tr("the %1's endpoint %2: %3")
                                    .arg(AgentRoles::name(role), e->name.toHtmlEscaped(), key);
            }
            if (members.isEmpty())
                problems << tr("no model is assigned to the %1").arg(AgentRoles::name(role));
            lines << QStringLiteral("<tr><td>%1&nbsp;</td><td>%2</td></tr>")
                         .arg(AgentRoles::name(role),
                              models.isEmpty() ? tr("<i>none</i>") : models.join(QStringLiteral(", ")));
        }
    }
    m_ui->modelsLabel->setText(QStringLiteral("<table>%1</table>").arg(lines.join(QString())));
    problems.removeDuplicates();
    m_ui->modelsWarning->setVisible(!problems.isEmpty());
    m_ui->modelsWarning->setText(
        QStringLiteral("%1 <a href='models'>%2</a>")
            .arg(Theme::statusHtml(Theme::Status::Bad,
                                   QStringLiteral("⚠ %1.").arg(problems.join(QStringLiteral("; ")))),
                 tr("Set up models in Tools › Models…")));
    fitContents();
}

void OptimizeDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    fitContents();
}

void OptimizeDialog::fitContents()
{
    // The word-wrapped labels (the task's note, the models and their warning) need more height at the width the
    // dialog gets than its size hint assumed; without this the left column's rows were squeezed and clipped.
    if (!isVisible() || !layout())
        return;
    layout()->activate();
    const int need = layout()->totalHeightForWidth(width());
    if (need > height())
        resize(width(), need);
}

void OptimizeDialog::preferTask(const QJsonObject &ref, const QString &name)
{
    if (ref.isEmpty() || m_ui->taskCombo->currentIndex() >= 0)
        return; // found from the file, which says more than a remembered choice
    int index = indexOfTask(m_ui->taskCombo, ref);
    if (index < 0) {
        m_ui->taskCombo->insertItem(0, name, ref);
        index = 0;
    }
    m_ui->taskCombo->setCurrentIndex(index);
    m_ui->taskNote->setText(tr("The task this tab was benchmarked against."));
}

void OptimizeDialog::newTask()
{
    const std::optional<TaskQuestion::Answer> made = TaskQuestion::create(
        m_context, m_prompts, this, {m_kernel.name, m_kernel.path, m_kernel.source}, m_tasksDir);
    if (!made)
        return;
    const QString dir = made->ref.value(QStringLiteral("dir")).toString();
    m_ui->taskCombo->insertItem(0, made->name, made->ref);
    m_ui->taskCombo->setCurrentIndex(0);
    m_ui->taskNote->setText(tr("Created %1 in %2.").arg(made->name.toHtmlEscaped(), dir.toHtmlEscaped()));
    Q_EMIT taskCreated(made->ref, made->name);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setFocus(); // Enter starts the search with the new task
}

void OptimizeDialog::applyPreset()
{
    const QString name = m_ui->presetCombo->currentData().toString();
    if (name.isEmpty())
        return; // custom: keep the numbers
    if (const std::optional<SearchConfig> preset = SearchConfig::preset(name))
        showConfig(*preset);
}

void OptimizeDialog::showConfig(const SearchConfig &config)
{
    m_showingPreset = true;
    m_ui->beamSpin->setValue(config.beamWidth);
    m_ui->plansSpin->setValue(config.plansPerKernel);
    m_ui->samplesSpin->setValue(config.samplesPerPlan);
    m_ui->iterationsSpin->setValue(config.iterations);
    m_ui->fixSpin->setValue(config.fixRounds);
    m_ui->patienceSpin->setValue(config.patience);
    m_showingPreset = false;
}

SearchConfig OptimizeDialog::readConfig() const
{
    // What the form does not show (seed, TopK, ExpN, thresholds) comes from the preset, or for custom
    // settings from the last run's.
    SearchConfig c = SearchConfig::preset(m_ui->presetCombo->currentData().toString()).value_or(m_base);
    c.beamWidth = m_ui->beamSpin->value();
    c.plansPerKernel = m_ui->plansSpin->value();
    c.samplesPerPlan = m_ui->samplesSpin->value();
    c.iterations = m_ui->iterationsSpin->value();
    c.fixRounds = m_ui->fixSpin->value();
    c.patience = m_ui->patienceSpin->value();
    c.budgetUsd = m_ui->budgetUsdSpin->value();
    c.budgetTokens = m_ui->budgetTokensSpin->value();
    c.budgetWallSeconds = m_ui->budgetMinutesSpin->value() * 60.0;
    c.targetPercentOfPeak = m_ui->targetPercentSpin->value();
    c.checkAll = m_ui->checkAllCheck->isChecked();
    c.confirmOn = m_ui->confirmCombo->isEnabled() ? m_ui->confirmCombo->currentData().toString() : QString();
    return c;
}

void OptimizeDialog::hostChanged()
{
    for (const HostConfig &h : std::as_const(m_hosts))
        if (h.name == m_ui->hostCombo->currentText()) {
            m_ui->backendCombo->setCurrentIndex(m_ui->backendCombo->findData(h.backend));
            m_ui->targetCombo->setCurrentIndex(m_ui->targetCombo->findText(h.target));
            // Confirming needs nkisim on the search's host: a Neuron host's own numbers are already the device's.
            m_ui->confirmCombo->setEnabled(h.backend == QLatin1String("sim") && m_ui->confirmCombo->count() > 1);
        }
}

void OptimizeDialog::accept()
{
    if (m_ui->taskCombo->currentIndex() < 0) {
        m_ui->taskNote->setText(Theme::statusHtml(
            Theme::Status::Bad,
            tr("Choose the task this kernel solves, or make one with New Task from This Kernel….")));
        m_ui->taskCombo->setFocus();
        return;
    }
    const QJsonObject ref = m_ui->taskCombo->currentData().toJsonObject();
    QString error;
    const std::optional<TaskSources> sources = TaskSources::load(ref, m_tasksDir, error);
    if (!sources) {
        m_ui->taskNote->setText(Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()));
        return;
    }
    SearchConfig config = readConfig();
    if (const QStringList problems = config.problems(); !problems.isEmpty()) {
        m_ui->taskNote->setText(
            Theme::statusHtml(Theme::Status::Bad, problems.join(QStringLiteral("; ")).toHtmlEscaped()));
        return;
    }
    Request r;
    r.task.name = sources->name;
    r.task.ref = ref;
    r.task.reference = sources->reference;
    r.task.kernel = m_kernel.source.trimmed().isEmpty() ? sources->kernel : m_kernel.source;
    r.task.backend = m_ui->backendCombo->currentData().toString();
    r.task.target = m_ui->targetCombo->currentText();
    r.task.size = m_ui->sizeCombo->currentData().toString();
    r.task.evalTimeoutSeconds = m_ui->timeoutSpin->value();
    r.config = config;
    r.host = m_ui->hostCombo->currentText();
    r.useMemory = m_ui->memoryCheck->isChecked();
    m_request = r;
    remember();
    QDialog::accept();
}

void OptimizeDialog::remember() const
{
    AppSettings::optimizeHost.set(m_ui->hostCombo->currentText());
    AppSettings::optimizeBackend.set(m_ui->backendCombo->currentData().toString());
    AppSettings::optimizeTarget.set(m_ui->targetCombo->currentText());
    AppSettings::optimizeSize.set(m_ui->sizeCombo->currentData().toString());
    AppSettings::optimizeTimeout.set(m_ui->timeoutSpin->value());
    AppSettings::optimizePreset.set(m_ui->presetCombo->currentData().toString());
    AppSettings::optimizeConfig.set(
        QString::fromUtf8(QJsonDocument(m_request.config.toJson()).toJson(QJsonDocument::Compact)));
    AppSettings::optimizeMemory.set(m_ui->memoryCheck->isChecked());
}

void OptimizeDialog::restore()
{
    auto pick = [](QComboBox *box, const std::optional<QString> &value, bool byData) {
        if (!value)
            return;
        const int i = byData ? box->findData(*value) : box->findText(*value);
        if (i >= 0)
            box->setCurrentIndex(i);
    };
    pick(m_ui->hostCombo, AppSettings::optimizeHost.stored(), false);
    hostChanged();
    pick(m_ui->backendCombo, AppSettings::optimizeBackend.stored(), true);
    pick(m_ui->targetCombo, AppSettings::optimizeTarget.stored(), false);
    pick(m_ui->sizeCombo, AppSettings::optimizeSize.stored(), true);
    m_ui->timeoutSpin->setValue(AppSettings::optimizeTimeout.value());
    m_ui->memoryCheck->setChecked(AppSettings::optimizeMemory.value());
    pick(m_ui->presetCombo, AppSettings::optimizePreset.stored(), true);
    const QJsonObject saved = QJsonDocument::fromJson(AppSettings::optimizeConfig.value().toUtf8()).object();
    if (const std::optional<SearchConfig> config = SearchConfig::fromJson(saved);
        config && !saved.isEmpty()) {
        m_base = *config;
        showConfig(*config);
        m_ui->checkAllCheck->setChecked(config->checkAll);
        if (const int i = m_ui->confirmCombo->findData(config->confirmOn); i >= 0)
            m_ui->confirmCombo->setCurrentIndex(i);
        m_ui->budgetUsdSpin->setValue(config->budgetUsd);
        m_ui->budgetTokensSpin->setValue(
            int(std::min<qint64>(config->budgetTokens, m_ui->budgetTokensSpin->maximum())));
        m_ui->budgetMinutesSpin->setValue(config->budgetWallSeconds / 60.0);
        m_ui->targetPercentSpin->setValue(config->targetPercentOfPeak);
    } else {
        applyPreset();
    }
}

#include "hostsdialog.h"

#include "appcontext.h"
#include "guisshprompter.h"
#include "model/targets.h"
#include "theme.h"
#include "ui_hostsdialog.h"

#include <QJsonArray>
#include <QPushButton>

HostsDialog::HostsDialog(AppContext *context, std::shared_ptr<SshPrompter> prompter, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::HostsDialog>()),
      m_prompter(prompter ? std::move(prompter) : std::make_shared<GuiSshPrompter>(this)), m_context(context)
{
    m_ui->setupUi(this);
    m_ui->kindCombo->addItem(tr("SSH"), QStringLiteral("ssh"));
    m_ui->kindCombo->addItem(tr("This machine"), QStringLiteral("local"));
    m_ui->kindCombo->addItem(tr("SLURM cluster"), QStringLiteral("slurm"));
    m_ui->sshHostEdit->setToolTip(
        tr("For a SLURM cluster: its head node; empty when this machine submits jobs"));
    m_ui->backendCombo->addItem(tr("sim (nkisim)"), QStringLiteral("sim"));
    m_ui->backendCombo->addItem(tr("neuron (Trainium)"), QStringLiteral("neuron"));
    m_ui->targetCombo->addItems(Targets::all());

    connect(m_context, &AppContext::hostsLoaded, this,
            [this](quint64 job, const QList<HostConfig> &hosts, const QString &error) {
                if (job == m_loadJob)
                    fill(hosts, error);
            });
    connect(m_context, &AppContext::hostsSaved, this, [this](quint64 job, int count, const QString &error) {
        if (job != m_saveJob)
            return;
        m_saveJob = 0;
        if (!error.isEmpty()) {
            setStatus(Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()));
            Q_EMIT saveFinished(false);
            return;
        }
        setStatus(tr("Saved %n host(s) to %1.", nullptr, count).arg(m_context->hostsPath().toHtmlEscaped()));
        Q_EMIT hostsSaved();
        Q_EMIT saveFinished(true);
    });
    setStatus(tr("Reading the hosts…"));
    m_loadJob = m_context->loadHosts();

    connect(m_ui->hostList, &QListWidget::currentRowChanged, this, [this](int row) {
        storeForm();
        showHost(row);
    });
    connect(m_ui->addButton, &QPushButton::clicked, this, &HostsDialog::addHost);
    connect(m_ui->removeButton, &QPushButton::clicked, this, &HostsDialog::removeHost);
    connect(m_ui->testButton, &QPushButton::clicked, this, &HostsDialog::testConnection);
    connect(m_ui->kindCombo, &QComboBox::currentIndexChanged, this, &HostsDialog::updateEnabled);
    connect(m_ui->buttonBox->button(QDialogButtonBox::Save), &QPushButton::clicked, this, &HostsDialog::save);
    connect(m_context, &AppContext::hostTestState, this,
            [this](quint64 job, const QString &host, Host::State state, const QString &detail) {
                if (job == m_testJob)
                    Q_EMIT hostStateChanged(host, state, detail);
            });
    connect(m_context, &AppContext::hostTested, this, [this](quint64 job, const HostProbe::Result &result) {
        if (job == m_testJob)
            showResult(result);
    });
    updateEnabled();
}

HostsDialog::~HostsDialog() = default;

void HostsDialog::fill(const QList<HostConfig> &hosts, const QString &error)
{
    m_loaded = true;
    m_loadFailed = !error.isEmpty();
    setStatus(m_loadFailed ? Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()) : QString());
    m_hosts = hosts;
    for (const HostConfig &config : std::as_const(m_hosts))
        m_ui->hostList->addItem(config.name);
    m_ui->hostList->setCurrentRow(0);
}

void HostsDialog::showHost(int row)
{
    m_current = row;
    if (row < 0 || row >= m_hosts.size())
        return;
    const HostConfig &c = m_hosts.at(row);
    m_loading = true;
    m_ui->nameEdit->setText(c.name);
    m_ui->kindCombo->setCurrentIndex(m_ui->kindCombo->findData(HostConfig::kindName(c.kind)));
    m_ui->sshHostEdit->setText(c.sshHost);
    m_ui->userEdit->setText(c.user);
    m_ui->portSpin->setValue(c.port);
    m_ui->identityEdit->setText(c.identityFile);
    m_ui->pythonEdit->setText(c.python);
    m_ui->venvEdit->setText(c.venv);
    m_ui->backendCombo->setCurrentIndex(m_ui->backendCombo->findData(c.backend));
    m_ui->targetCombo->setCurrentText(c.target);
    m_ui->slotsSpin->setValue(c.slotCount);
    m_ui->deployEdit->setText(c.deployRoot);
    m_ui->weightSpin->setValue(c.weight);
    m_ui->partitionEdit->setText(c.partition);
    m_ui->accountEdit->setText(c.account);
    m_ui->timeEdit->setText(c.timeLimit);
    m_ui->gresEdit->setText(c.gres);
    m_ui->nodesSpin->setValue(c.nodes);
    QStringList env;
    for (auto it = c.environment.begin(); it != c.environment.end(); ++it)
        env << it.key() + u'=' + it.value();
    m_ui->envEdit->setPlainText(env.join(u'\n'));
    m_loading = false;
    updateEnabled();
}

bool HostsDialog::readForm(HostConfig &out, QString &error) const
{
    QJsonObject env;
    const QStringList lines = m_ui->envEdit->toPlainText().split(u'\n', Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        const qsizetype eq = line.indexOf(u'=');
        if (eq <= 0) {
            error = tr("Environment line '%1' is not KEY=VALUE").arg(line.trimmed());
            return false;
        }
        env.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    const QJsonObject o{{QStringLiteral("name"), m_ui->nameEdit->text().trimmed()},
                        {QStringLiteral("kind"), m_ui->kindCombo->currentData().toString()},
                        {QStringLiteral("ssh_host"), m_ui->sshHostEdit->text().trimmed()},
                        {QStringLiteral("user"), m_ui->userEdit->text().trimmed()},
                        {QStringLiteral("port"), m_ui->portSpin->value()},
                        {QStringLiteral("identity_file"), m_ui->identityEdit->text().trimmed()},
                        {QStringLiteral("python"), m_ui->pythonEdit->text().trimmed()},
                        {QStringLiteral("venv"), m_ui->venvEdit->text().trimmed()},
                        {QStringLiteral("backend"), m_ui->backendCombo->currentData().toString()},
                        {QStringLiteral("target"), m_ui->targetCombo->currentText()},
                        {QStringLiteral("slots"), m_ui->slotsSpin->value()},
                        {QStringLiteral("deploy_root"), m_ui->deployEdit->text().trimmed()},
                        {QStringLiteral("weight"), m_ui->weightSpin->value()},
                        {QStringLiteral("partition"), m_ui->partitionEdit->text().trimmed()},
                        {QStringLiteral("account"), m_ui->accountEdit->text().trimmed()},
                        {QStringLiteral("time_limit"), m_ui->timeEdit->text().trimmed()},
                        {QStringLiteral("gres"), m_ui->gresEdit->text().trimmed()},
                        {QStringLiteral("nodes"), m_ui->nodesSpin->value()},
                        {QStringLiteral("env"), env}};
    HostConfig config;
    if (!HostConfig::fromJson(o, config, error))
        return false;
    // Settings the form does not show survive an edit.
    if (m_current >= 0 && m_current < m_hosts.size()) {
        config.knownHostsFile = m_hosts.at(m_current).knownHostsFile;
        config.sshConfigFile = m_hosts.at(m_current).sshConfigFile;
        config.constraint = m_hosts.at(m_current).constraint;
    }
    out = config;
    return true;
}

void HostsDialog::storeForm()
{
    if (m_loading || m_current <= 0 || m_current >= m_hosts.size())
        return; // row 0 is the built-in host: nothing to store
    HostConfig config;
    QString error;
    if (!readForm(config, error)) {
        setStatus(Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()));
        return;
    }
    m_hosts[m_current] = config;
    m_ui->hostList->item(m_current)->setText(config.name);
}

void HostsDialog::addHost()
{
    storeForm();
    HostConfig config;
    config.kind = HostConfig::Kind::Ssh;
    int n = 1;
    auto taken = [this](const QString &name) {
        for (const HostConfig &c : std::as_const(m_hosts))
            if (c.name == name)
                return true;
        return false;
    };
    do
        config.name = QStringLiteral("host-%1").arg(n++);
    while (taken(config.name));
    m_hosts.append(config);
    m_ui->hostList->addItem(config.name);
    m_ui->hostList->setCurrentRow(int(m_hosts.size()) - 1);
    m_ui->sshHostEdit->setFocus();
}

void HostsDialog::removeHost()
{
    const int row = m_ui->hostList->currentRow();
    if (row <= 0)
        return;
    m_current = -1; // nothing to store from the row that goes
    m_hosts.removeAt(row);
    delete m_ui->hostList->takeItem(row);
}

bool HostsDialog::save()
{
    if (!m_loaded || m_saveJob != 0) {
        setStatus(Theme::statusHtml(Theme::Status::Bad,
                                    tr("The hosts are still being read or saved; try again in a moment.")));
        return false;
    }
    storeForm();
    if (m_loadFailed) {
        setStatus(Theme::statusHtml(
            Theme::Status::Bad,
            tr("The hosts file could not be read, so it is not overwritten. Fix or move %1 first.")
                .arg(m_context->hostsPath().toHtmlEscaped())));
        return false;
    }
    if (m_current > 0) {
        HostConfig check;
        QString error;
        if (!readForm(check, error)) {
            setStatus(Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()));
            return false;
        }
    }
    QStringList names;
    for (int i = 1; i < m_hosts.size(); ++i) {
        if (names.contains(m_hosts.at(i).name) || m_hosts.at(i).name == QStringLiteral("local")) {
            setStatus(Theme::statusHtml(
                Theme::Status::Bad,
                tr("Two hosts are named %1; names must be unique.").arg(m_hosts.at(i).name.toHtmlEscaped())));
            return false;
        }
        names << m_hosts.at(i).name;
    }
    // Row 0 is the built-in host, which the file never holds; the engine writes the rest.
    setStatus(tr("Saving…"));
    m_saveJob = m_context->saveHosts(m_hosts.mid(1));
    return true;
}

void HostsDialog::testConnection()
{
    if (m_testJob != 0)
        return;
    HostConfig config;
    QString error;
    if (m_current == 0)
        config = m_hosts.at(0);
    else if (!readForm(config, error)) {
        setStatus(Theme::statusHtml(Theme::Status::Bad, error.toHtmlEscaped()));
        return;
    }
    m_ui->testButton->setEnabled(false);
    setStatus(tr("Connecting to %1…").arg(config.name.toHtmlEscaped()));
    m_testJob = m_context->testHost(config, m_prompter);
}

void HostsDialog::showResult(const HostProbe::Result &r)
{
    m_testJob = 0;
    m_ui->testButton->setEnabled(true);
    if (!r.ok) {
        setStatus(
            Theme::statusHtml(Theme::Status::Bad, tr("<b>Failed:</b> %1").arg(r.error.toHtmlEscaped())));
        return;
    }
    QString html = tr("%1 in %2 s<br>")
                       .arg(Theme::statusHtml(Theme::Status::Good, tr("<b>Connected</b>")))
                       .arg(r.seconds, 0, 'f', 2);
    if (!r.fingerprint.isEmpty())
        html += tr("Host key: <tt>%1</tt><br>Runner folder: <tt>%2</tt> (%3 files uploaded)<br>")
                    .arg(r.fingerprint.toHtmlEscaped(), r.remoteDir.toHtmlEscaped())
                    .arg(r.uploadedFiles);
    html += tr("Runner %1, protocol %2; Python %3, numpy %4; backends: %5")
                .arg(r.hello.value(QStringLiteral("runner_version")).toString().toHtmlEscaped())
                .arg(r.hello.value(QStringLiteral("protocol_version")).toInt())
                .arg(r.hello.value(QStringLiteral("python")).toString().toHtmlEscaped(),
                     r.hello.value(QStringLiteral("numpy")).toString().toHtmlEscaped(),
                     r.hello.value(QStringLiteral("backends")).toObject().keys().join(QStringLiteral(", ")));
    if (const QString slurm = r.slurmLine(); !slurm.isEmpty())
        html += tr("<br>SLURM %1").arg(slurm.toHtmlEscaped());
    for (const QString &line : r.nkiLines())
        html += QStringLiteral("<br>") + line.toHtmlEscaped();
    setStatus(html);
}

void HostsDialog::setStatus(const QString &html)
{
    m_ui->statusLabel->setText(html);
}

QString HostsDialog::statusText() const
{
    return m_ui->statusLabel->text();
}

void HostsDialog::updateEnabled()
{
    const bool builtin = m_current == 0;
    const QString kind = m_ui->kindCombo->currentData().toString();
    const bool slurm = kind == QStringLiteral("slurm");
    const bool ssh = kind == QStringLiteral("ssh") || slurm; // a SLURM cluster's head node, when not here
    for (QWidget *w : {static_cast<QWidget *>(m_ui->nameEdit), static_cast<QWidget *>(m_ui->kindCombo),
                       static_cast<QWidget *>(m_ui->pythonEdit), static_cast<QWidget *>(m_ui->venvEdit),
                       static_cast<QWidget *>(m_ui->backendCombo), static_cast<QWidget *>(m_ui->targetCombo),
                       static_cast<QWidget *>(m_ui->slotsSpin), static_cast<QWidget *>(m_ui->envEdit)})
        w->setEnabled(!builtin);
    for (QWidget *w : {static_cast<QWidget *>(m_ui->sshHostEdit), static_cast<QWidget *>(m_ui->userEdit),
                       static_cast<QWidget *>(m_ui->portSpin), static_cast<QWidget *>(m_ui->identityEdit),
                       static_cast<QWidget *>(m_ui->deployEdit)})
        w->setEnabled(!builtin && ssh);
    m_ui->sshHostEdit->setPlaceholderText(slurm ? tr("head node over SSH; empty: jobs are submitted from here")
                                                : tr("alias from ~/.ssh/config, or a host name"));
    m_ui->weightSpin->setEnabled(!builtin);
    for (QWidget *w : {static_cast<QWidget *>(m_ui->partitionEdit), static_cast<QWidget *>(m_ui->accountEdit),
                       static_cast<QWidget *>(m_ui->timeEdit), static_cast<QWidget *>(m_ui->gresEdit),
                       static_cast<QWidget *>(m_ui->nodesSpin)})
        w->setEnabled(!builtin && slurm);
    m_ui->removeButton->setEnabled(!builtin);
}

# Cloud resources of the Engram deployment. Terraform owns the bucket, the image
# registry, the functions' RAM role, their log store, the queue failed sleep jobs
# land in, the alarms and (optionally) the production custom domain; ../s.yaml
# (Serverless Devs) owns the four functions and their triggers, and takes the
# values of outputs.tf.

data "alicloud_account" "current" {}

locals {
  tenant_prefix = "${var.prefix}/"
  config_prefix = "${var.prefix}-config/"
  # The same routes as s.yaml's engram-domain (a test keeps the two equal): one origin for the API and board.
  domain_routes = [
    { path = "/chat", function = var.function_names.chat, methods = ["POST"] },
    { path = "/v1/*", function = var.function_names.chat, methods = ["GET", "POST"] },
    { path = "/consolidate", function = var.function_names.consolidate, methods = ["POST"] },
    { path = "/sleep", function = var.function_names.consolidate, methods = ["POST"] },
    { path = "/dream", function = var.function_names.consolidate, methods = ["POST"] },
    { path = "/dream/*", function = var.function_names.consolidate, methods = ["POST"] },
    { path = "/*", function = var.function_names.memories, methods = ["GET", "POST", "DELETE"] },
  ]
  # Alarms: HTTP 5xx answers of the three functions on the domain; failed or dropped sleep jobs.
  http_functions = [var.function_names.chat, var.function_names.memories, var.function_names.consolidate]
  job_alarms     = ["FunctionFunctionErrors", "FunctionAsyncEventExpiredDropped", "FunctionDestinationErrors"]
}

# -- OSS: one bucket, private, never versioned --------------------------------------
# Versioning stays off: OSS ignores x-oss-forbid-overwrite on versioned buckets,
# and create-only generations are what make concurrent commits safe.
resource "alicloud_oss_bucket" "tenants" {
  bucket        = var.bucket_name
  storage_class = "Standard"

  server_side_encryption_rule {
    sse_algorithm = "AES256"
  }

  # Crashed uploads leave no parts behind.
  lifecycle_rule {
    id      = "abort-incomplete-uploads"
    prefix  = local.tenant_prefix
    enabled = true

    abort_multipart_upload {
      days = 1
    }
  }

  # Old generations (the newest K and the grace window that garbage collection
  # keeps, and the only generation of a dormant tenant) get cheaper storage.
  # Deleting superseded generations is the snapshot GC's job: age alone cannot
  # tell a superseded generation from a dormant tenant's newest one.
  lifecycle_rule {
    id      = "old-generations-to-ia"
    prefix  = local.tenant_prefix
    enabled = true

    transitions {
      days          = var.cold_after_days
      storage_class = "IA"
    }
  }

  # Dispatch claims of the timer (one empty object per tenant and hour) are only needed while FC
  # may still retry that hour's timer event.
  lifecycle_rule {
    id      = "expire-dispatch-claims"
    prefix  = "${local.tenant_prefix}_claims/"
    enabled = true

    expiration {
      days = 2
    }
  }

  lifecycle {
    prevent_destroy = true
  }
}

resource "alicloud_oss_bucket_acl" "tenants" {
  bucket = alicloud_oss_bucket.tenants.bucket
  acl    = "private"
}

# -- Container Registry (personal edition): the custom-container image -------------
resource "alicloud_cr_namespace" "engram" {
  name               = var.acr_namespace
  auto_create        = false
  default_visibility = "PRIVATE"
}

resource "alicloud_cr_repo" "engram" {
  namespace = alicloud_cr_namespace.engram.name
  name      = var.acr_repository
  summary   = "Engram Function Compute image (chat, memories, consolidate)"
  repo_type = "PRIVATE"
}

# -- RAM: the role the functions assume, limited to the bucket prefix ----------------
resource "alicloud_ram_role" "functions" {
  role_name                   = var.role_name
  description                 = "Engram functions: tenant snapshots in OSS, async sleep jobs, logs."
  assume_role_policy_document = file("${path.module}/policies/assume-role.json")
}

resource "alicloud_ram_policy" "functions" {
  policy_name = "${var.role_name}-least-privilege"
  description = "Only the tenant prefix and the keys file of one bucket, and one function to invoke."
  policy_document = templatefile("${path.module}/policies/functions.json.tftpl", {
    bucket         = var.bucket_name
    tenant_prefix  = local.tenant_prefix
    config_prefix  = local.config_prefix
    region         = var.region
    account_id     = data.alicloud_account.current.id
    sleep_function = var.function_names.jobs
    acr_repository = "${var.acr_namespace}/${var.acr_repository}"
    failure_queue  = alicloud_message_service_queue.failed_jobs.queue_name
    log_project    = alicloud_log_project.engram.project_name
  })
}

resource "alicloud_ram_role_policy_attachment" "functions" {
  role_name   = alicloud_ram_role.functions.role_name
  policy_name = alicloud_ram_policy.functions.policy_name
  policy_type = "Custom"
}

# -- Logs: one project and store for the four functions (s.yaml's logConfig) -----------------
resource "alicloud_log_project" "engram" {
  project_name = var.log_project
  description  = "Engram functions: request logs and metrics"
}

resource "alicloud_log_store" "functions" {
  project_name     = alicloud_log_project.engram.project_name
  logstore_name    = "functions"
  retention_period = var.log_retention_days
  shard_count      = 2
}

# -- Sleep jobs that fail every attempt, or expire in the queue, land here (async destination) ---
resource "alicloud_message_service_queue" "failed_jobs" {
  queue_name               = "engram-failed-jobs"
  message_retention_period = 604800 # a week to look at them
}

# -- Alarms (CloudMonitor, FC's acs_fc metrics), when a contact group is given -----------------
resource "alicloud_cms_alarm" "http_5xx" {
  for_each          = var.alarm_contact_group == "" ? toset([]) : toset(local.http_functions)
  name              = "${each.value}-http-5xx"
  project           = "acs_fc"
  metric            = "FunctionHTTPStatus5xx"
  metric_dimensions = jsonencode([{ region = var.region, serviceName = "", functionName = each.value }])
  period            = 60
  contact_groups    = [var.alarm_contact_group]

  escalations_critical {
    statistics          = "Sum"
    comparison_operator = ">="
    threshold           = "5"
    times               = 1
  }
}

resource "alicloud_cms_alarm" "sleep_jobs" {
  for_each          = var.alarm_contact_group == "" ? toset([]) : toset(local.job_alarms)
  name              = "${var.function_names.jobs}-${each.value}"
  project           = "acs_fc"
  metric            = each.value
  metric_dimensions = jsonencode([{ region = var.region, serviceName = "", functionName = var.function_names.jobs }])
  period            = 60
  contact_groups    = [var.alarm_contact_group]

  escalations_critical {
    statistics          = "Sum"
    comparison_operator = ">="
    threshold           = "1"
    times               = 1
  }
}

# -- The production origin: your own (ICP-filed) domain, when var.custom_domain is set ------------
# s.yaml declares the same routes on an `auto` test domain; manage a given domain name with one tool only.
resource "alicloud_fcv3_custom_domain" "engram" {
  count              = var.custom_domain == "" ? 0 : 1
  custom_domain_name = var.custom_domain
  protocol           = var.domain_certificate == "" ? "HTTP" : "HTTP,HTTPS"

  route_config {
    dynamic "routes" {
      for_each = local.domain_routes
      content {
        path          = routes.value.path
        function_name = routes.value.function
        methods       = routes.value.methods
        qualifier     = "LATEST"
      }
    }
  }

  dynamic "cert_config" {
    for_each = var.domain_certificate == "" ? [] : [1]
    content {
      cert_name   = "engram-${replace(var.custom_domain, ".", "-")}"
      certificate = var.domain_certificate
      private_key = var.domain_private_key
    }
  }
}

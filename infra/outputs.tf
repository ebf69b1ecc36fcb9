output "role_arn" {
  description = "ENGRAM_FC_ROLE_ARN for s.yaml."
  value       = alicloud_ram_role.functions.arn
}

output "bucket" {
  description = "ENGRAM_BUCKET for s.yaml."
  value       = alicloud_oss_bucket.tenants.bucket
}

output "oss_internal_endpoint" {
  description = "ENGRAM_OSS_ENDPOINT for s.yaml (the functions reach OSS over the region's internal network)."
  value       = "https://${alicloud_oss_bucket.tenants.intranet_endpoint}"
}

output "image_repository" {
  description = "Push the image here; ENGRAM_IMAGE is this plus a tag."
  value       = "registry.${var.region}.aliyuncs.com/${alicloud_cr_namespace.engram.name}/${alicloud_cr_repo.engram.name}"
}

output "log_project" {
  description = "ENGRAM_LOG_PROJECT for s.yaml."
  value       = alicloud_log_project.engram.project_name
}

output "log_store" {
  description = "ENGRAM_LOG_STORE for s.yaml."
  value       = alicloud_log_store.functions.logstore_name
}

output "failure_destination" {
  description = "ENGRAM_FAILURE_DESTINATION for s.yaml: where sleep jobs go when every attempt failed."
  value       = "acs:mns:${var.region}:${data.alicloud_account.current.id}:/queues/${alicloud_message_service_queue.failed_jobs.queue_name}/messages"
}
